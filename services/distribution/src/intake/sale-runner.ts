import { crashPoint } from '@leadflow/service-kit/crash-points';
import type { Logger } from '@leadflow/service-kit/logger';
import { inSpan } from '@leadflow/service-kit/telemetry';
import type { Tracer } from '@opentelemetry/api';
import type { BuyerService } from '../buyers/buyer.service.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import { loggedError, StatusError } from '../errors.js';
import type { AttemptRecord } from '../leads/attempt-record.js';
import * as repository from '../leads/lead.repository.js';
import type { LeadIdentity } from '../leads/lead-record.js';
import type { ValidLead } from '../leads/validation.js';
import type { LiveKey } from '../publishers/publisher.repository.js';
import { recoverSale } from '../selling/lead-recovery.js';
import { AWAITING_CONFIRMATION, type LeadSeller, type SaleDecision } from '../selling/lead-seller.js';
import { STALE_CLAIM_GRACE_MS } from '../selling/sale-claim.js';
import { LeadNotRecordable, saleWrite, unsoldWrite } from '../selling/sale-record.js';
import { type IntakeOutcome, type IntakeResult, LEAD_IN_PROGRESS, replay, soldOutcome } from './intake-outcome.js';

export interface SaleRunnerDependencies {
  db: Db;
  /** Where the lead's writes go: committed together with other leads' writes. */
  writes: GroupCommit;
  buyers: BuyerService;
  seller: LeadSeller;
  /** Overall time budget for selling one lead. */
  sellDeadlineMs: number;
  tracer: Tracer;
  logger: Logger;
  metrics: { buyerAttempts(attempts: readonly AttemptRecord[]): void };
}

/** Time kept back from the caller's deadline to write the outcome. */
const RECORD_MARGIN_MS = 250;

/** A write's result, or the stored answer when another writer recorded the lead first. */
type WrittenOrReplayed<T> = { value: T } | { replayed: IntakeResult };

/** What a sale is for: the lead, who claimed it, whose it is, when the caller needs the answer. */
export interface SaleOrder {
  valid: ValidLead;
  identity: LeadIdentity;
  publisher: LiveKey;
  /** Epoch ms by which the caller needs the answer (Infinity when it set no deadline). */
  answerBy: number;
}

/**
 * Sells a claimed lead and records how it ended, under the sale protocol: a step that fails gives the
 * claim back for the publisher's retry, and a record another writer beat replays the stored answer.
 */
export class SaleRunner {
  constructor(private readonly deps: SaleRunnerDependencies) {}

  async sell(order: SaleOrder, postedBuyers: ReadonlySet<string>): Promise<IntakeResult> {
    const { valid, identity, publisher, answerBy } = order;
    const started = performance.now();
    const ownDeadline = identity.now + this.deps.sellDeadlineMs;
    const callerDeadline = answerBy - RECORD_MARGIN_MS;
    const decision = await this.givingBackOnFailure(identity, () =>
      inSpan(this.deps.tracer, 'leadflow.select', async (span) => {
        const result = await this.deps.seller.sell({
          leadId: identity.id,
          lead: valid,
          publisherId: publisher.publisherId,
          publisherPayoutShareBps: publisher.payoutShareBps,
          person: identity.person,
          claimToken: identity.claimToken,
          postedBuyers,
          deadline: Math.min(ownDeadline, callerDeadline),
          budgetMs: this.deps.sellDeadlineMs,
          recordBy: Math.min(answerBy, ownDeadline + STALE_CLAIM_GRACE_MS / 2),
        });
        span.setAttributes({
          'leadflow.buyer_attempts': result.attempts.length,
          'leadflow.sold': result.winner !== undefined,
        });
        return result;
      }),
    );
    // A post still open for its late answer may settle the lead only once the lead's outcome is recorded
    // (or found recorded by another writer); followed whatever the record's fate, since every
    // settlement is conditional on the lead being held.
    try {
      return await this.conclude(order, decision, started, ownDeadline, callerDeadline);
    } finally {
      decision.unconfirmed?.lingering?.follow();
    }
  }

  /** Records the decision (or replays the outcome another writer recorded) and answers the caller. */
  private async conclude(
    order: SaleOrder,
    decision: SaleDecision,
    started: number,
    ownDeadline: number,
    callerDeadline: number,
  ): Promise<IntakeResult> {
    const { valid, identity } = order;
    if (!valid.test) this.deps.metrics.buyerAttempts(decision.attempts);
    if (decision.interrupted) return this.replayOrRetry(identity.id);
    // Buyers left untried because the caller could not wait: nothing final is stored, and a retry with a
    // whole budget sells the lead.
    const cutShortByCaller =
      !decision.winner && !decision.unconfirmed && decision.outOfTime && callerDeadline < ownDeadline;
    const processingMs = Math.round((performance.now() - started) * 100) / 100;
    const recorded = await this.givingBackOnFailure(identity, () =>
      this.recordingOrReplaying(identity.id, () =>
        inSpan(this.deps.tracer, 'leadflow.record', () =>
          this.record(identity, valid.test, decision, cutShortByCaller, processingMs),
        ),
      ),
    );
    if ('replayed' in recorded) return recorded.replayed;
    crashPoint('after-record');
    if (cutShortByCaller)
      throw new StatusError('unavailable', 'not enough time left to sell the lead: retry', {
        reason: 'DEADLINE_TOO_SHORT',
      });
    const outcome: IntakeOutcome = decision.winner
      ? soldOutcome(identity.id, decision.winner)
      : decision.unconfirmed
        ? { kind: 'unconfirmed', leadId: identity.id, reason: AWAITING_CONFIRMATION }
        : { kind: 'rejected', leadId: identity.id, reason: decision.reason };
    return { outcome, buyerWaitMs: decision.buyerWaitMs, replayed: false };
  }

  /**
   * A lead whose seller stopped: finish what its posts did, or sell it to the buyers it was not posted to
   * (`sellRest`, so that the caller keeps track of the sale it starts).
   */
  async takeOver(
    order: SaleOrder,
    sellRest: (postedBuyers: ReadonlySet<string>) => Promise<IntakeResult>,
  ): Promise<IntakeResult> {
    const { identity, valid } = order;
    const recovered = await this.givingBackOnFailure(identity, () =>
      this.recordingOrReplaying(identity.id, () =>
        recoverSale(
          this.deps.db,
          this.deps.buyers,
          { id: identity.id, publisherId: identity.publisherId, test: valid.test, claimToken: identity.claimToken },
          identity.now,
        ),
      ),
    );
    if ('replayed' in recovered) return recovered.replayed;
    switch (recovered.value.kind) {
      case 'sold':
        return { outcome: soldOutcome(identity.id, recovered.value.winner), buyerWaitMs: 0, replayed: true };
      case 'unconfirmed':
        return {
          outcome: { kind: 'unconfirmed', leadId: identity.id, reason: AWAITING_CONFIRMATION },
          buyerWaitMs: 0,
          replayed: true,
        };
      case 'resell':
        return sellRest(recovered.value.postedBuyers);
    }
  }

  /**
   * The decision's record: a sale in one transaction with its ledger (it needs only the accepted post,
   * whoever holds the claim); anything else only under this process's claim. A lead the seller could
   * not finish for lack of the caller's time gets its claim back at once, for the next retry.
   */
  private async record(
    identity: LeadIdentity,
    test: boolean,
    decision: SaleDecision,
    release: boolean,
    processingMs: number,
  ): Promise<void> {
    const now = Date.now();
    const { winner } = decision;
    if (winner) {
      const lead = { id: identity.id, publisherId: identity.publisherId, test };
      await this.deps.writes
        .run(saleWrite(this.deps.db, lead, winner, decision.attempts, processingMs, now))
        .catch(async (error: unknown) => {
          // The acceptance must outlive the failed record: the lead's retry finishes the sale from it.
          // Should storage refuse that too, the post stays pending, and the lead waits for confirmation.
          await winner.acceptance
            ?.storeAlone()
            .catch((stored: unknown) =>
              this.deps.logger.error(
                { leadId: identity.id, postId: winner.postId, error: loggedError(stored) },
                'an accepted post could not be stored; the lead is held until the buyer confirms',
              ),
            );
          throw error;
        });
      return;
    }
    const update = release
      ? { claimedAt: repository.RELEASED_CLAIM_AT }
      : decision.unconfirmed
        ? {
            status: 'unconfirmed' as const,
            completedAt: now,
            reason: AWAITING_CONFIRMATION,
            processingMs,
          }
        : { status: 'rejected' as const, completedAt: now, reason: decision.reason, processingMs };
    await this.deps.writes.run(unsoldWrite(this.deps.db, identity.id, identity.claimToken, decision.attempts, update));
  }

  /**
   * Runs a step of a sale whose failure (storage gone, a write refused) must not cost the lead: what
   * reached buyers is in the post intents, so the claim is given back for the publisher's retry to
   * complete the lead from them at once, never posting it again, and the caller is told to retry.
   */
  private async givingBackOnFailure<T>(identity: LeadIdentity, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof StatusError) throw error;
      // A claim that cannot be given back goes stale instead, and the retry after that takes the lead over.
      await repository.releaseClaim(this.deps.db, identity.id, identity.claimToken).catch(() => undefined);
      this.deps.logger.error(
        { leadId: identity.id, error: loggedError(error) },
        'a sale step failed; the lead is left for the retry',
      );
      throw new StatusError('unavailable', 'the lead could not be finished yet: retry', LEAD_IN_PROGRESS);
    }
  }

  /**
   * Runs a write that another writer may have beaten (the lead recorded by a recovery, a resolution or a
   * late owner): then the stored answer is replayed instead.
   */
  private async recordingOrReplaying<T>(leadId: string, write: () => Promise<T>): Promise<WrittenOrReplayed<T>> {
    try {
      return { value: await write() };
    } catch (error) {
      if (!(error instanceof LeadNotRecordable) && !isDuplicateKeyError(error)) throw error;
      return { replayed: await this.replayOrRetry(leadId) };
    }
  }

  private async replayOrRetry(leadId: string): Promise<IntakeResult> {
    const stored = await repository.findLead(this.deps.db, leadId);
    if (!stored || stored.status === 'processing')
      throw new StatusError('unavailable', 'lead is still being processed: retry', LEAD_IN_PROGRESS);
    return replay(stored);
  }
}
