import type { Logger } from '@leadflow/service-kit/logger';
import { loggedError, StatusError } from '../errors.js';
import type { LeadResolution, Verdict } from './lead-resolution.js';
import type { TracedCallResult } from './traced-call.js';

/**
 * How a late answer ended: it sold the lead, declined it, said nothing that settles it (no answer by the
 * buyer's own timeout, or the call was abandoned: the lead stays held), or found the post settled by
 * someone else first (the reconciler, an operator, another instance).
 */
export type LateAnswerOutcome = 'sold' | 'declined' | 'held' | 'settled_elsewhere';

/** Where late answers are counted; DistributionMetrics in the service. */
export interface LateAnswerMetrics {
  lateAnswer(buyerId: string, outcome: LateAnswerOutcome, chargeCents: number): void;
}

/** A post cut short by the sale's deadline whose call goes on until the buyer's own timeout. */
export interface LingeringPost {
  /** Lets the answer settle the lead, when it comes: once the lead's outcome (unconfirmed) is recorded. */
  follow(): void;
  /** Ends the call, unless it is followed already: the lead stays held. */
  abandon(): void;
}

export interface LingeringCall {
  leadId: string;
  postId: string;
  buyerId: string;
  test: boolean;
  call: Promise<TracedCallResult>;
  /** Ends the call at once (its result is then a timeout). */
  controller: AbortController;
  /** What the answer means for the held lead; undefined when it settles nothing. */
  verdictOf(result: TracedCallResult): Verdict | undefined;
  /** Writes the answer (or its absence by the buyer's own timeout) to the audit trail and the buyer's figures. */
  record(result: TracedCallResult): Promise<void>;
}

export interface LateAnswersDependencies {
  resolution: LeadResolution;
  logger: Logger;
  metrics: LateAnswerMetrics;
  /** Calls left open at once, at most: each holds a connection and a little memory until its answer. */
  maxLingering: number;
}

/**
 * The posts whose answer may still come after the sale answered the publisher `unconfirmed`: each call
 * stays open until the buyer's own timeout, and its answer settles the lead through LeadResolution, the
 * path of a status lookup or an operator, whose conditional writes let only one settlement of a post win.
 */
export class LateAnswers {
  private readonly settling = new Set<Promise<void>>();
  private readonly calls = new Set<AbortController>();
  private closed = false;

  constructor(private readonly deps: LateAnswersDependencies) {}

  /** Keeps a call open past the sale's deadline, when there is room; undefined: cut it now. */
  keep(lingering: LingeringCall): LingeringPost | undefined {
    if (this.closed || this.calls.size >= this.deps.maxLingering) return undefined;
    const { controller } = lingering;
    this.calls.add(controller);
    let decide: (follow: boolean) => void = () => undefined;
    const decided = new Promise<boolean>((resolve) => (decide = resolve));
    let followed: boolean | undefined;
    const settled = Promise.all([lingering.call, decided])
      .then(([result, follow]) => (follow ? this.settle(lingering, result) : undefined))
      .catch((error: unknown) =>
        this.deps.logger.warn(
          {
            leadId: lingering.leadId,
            error: loggedError(error),
          },
          'a late answer could not settle its lead; it stays held',
        ),
      )
      .finally(() => {
        this.calls.delete(controller);
        this.settling.delete(settled);
      });
    this.settling.add(settled);
    return {
      follow: () => {
        followed ??= true;
        decide(followed);
      },
      abandon: () => {
        if (followed) return;
        followed = false;
        controller.abort();
        decide(false);
      },
    };
  }

  /** Calls open now. */
  get size(): number {
    return this.calls.size;
  }

  /**
   * Takes no more calls, waits up to `graceMs` for the open ones' answers to settle their leads, then
   * ends the rest: their leads stay held, for a status lookup, an operator or the settleAfter policy.
   */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled([...this.settling]), grace]);
    clearTimeout(timer);
    for (const controller of this.calls) controller.abort();
    await Promise.allSettled([...this.settling]);
  }

  private async settle(lingering: LingeringCall, result: TracedCallResult): Promise<void> {
    const verdict = lingering.verdictOf(result);
    const outcome = verdict ? await this.resolve(lingering, verdict) : 'held';
    await lingering
      .record(result)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { leadId: lingering.leadId, buyerId: lingering.buyerId, error: loggedError(error) },
          "a late answer settled its lead but could not be written to the lead's audit trail",
        ),
      );
    this.count(lingering, outcome, verdict?.sold ? (verdict.answer?.chargeCents ?? 0) : 0);
  }

  private async resolve(lingering: LingeringCall, verdict: Verdict): Promise<LateAnswerOutcome> {
    try {
      await this.deps.resolution.resolve(lingering.leadId, verdict, 'late_answer', lingering.postId);
    } catch (error) {
      if (!(error instanceof StatusError) || error.code !== 'failed_precondition') throw error;
      return 'settled_elsewhere';
    }
    this.deps.logger.info(
      { leadId: lingering.leadId, buyerId: lingering.buyerId, sold: verdict.sold },
      "settled a held lead by the buyer's late answer",
    );
    return verdict.sold ? 'sold' : 'declined';
  }

  /** Live leads only, as the buyer attempts' metrics. */
  private count(lingering: LingeringCall, outcome: LateAnswerOutcome, chargeCents: number): void {
    if (!lingering.test) this.deps.metrics.lateAnswer(lingering.buyerId, outcome, chargeCents);
  }
}
