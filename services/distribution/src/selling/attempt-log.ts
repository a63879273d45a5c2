import type { BuyerAttemptKind, BuyerAttemptOutcome } from '../db/schema.js';
import { newId } from '../ids.js';
import type { AttemptRecord } from '../leads/attempt-record.js';

/** posted: the lead was posted to this buyer before (a sale taken over after a crash). */
export type SkipReason =
  | 'closed'
  | 'filtered'
  | 'capped'
  | 'duplicate'
  | 'floor'
  | 'circuit_open'
  | 'deadline'
  | 'posted';

export interface CallRecord {
  kind: Exclude<BuyerAttemptKind, 'skip'>;
  startedAt: number;
  durationMs: number;
  outcome: BuyerAttemptOutcome;
  httpStatus: number | null;
  bidCents?: number;
  priceCents?: number;
  reference?: string;
  reason?: string;
}

/** Every ping, post and skip of one lead, in order, as the audit trail keeps them. */
export class AttemptLog {
  readonly attempts: AttemptRecord[] = [];
  private late: ((attempt: AttemptRecord) => void) | undefined;

  constructor(private readonly leadId: string) {}

  /**
   * The sale is decided and `attempts` go to its record: a call that ends later (a ping answered after
   * its window) is handed to `late` instead, so that the audit trail keeps it too.
   */
  close(late: (attempt: AttemptRecord) => void): void {
    this.late = late;
  }

  /** Returns undefined so that a caller dropping a buyer can `return log.skip(...)`. */
  skip(buyerId: string, reason: SkipReason): undefined {
    const now = Date.now();
    this.attempts.push(
      this.attemptOf(buyerId, {
        kind: 'skip',
        startedAt: now,
        durationMs: 0,
        outcome: 'skipped',
        httpStatus: null,
        reason,
      }),
    );
    return undefined;
  }

  call(buyerId: string, record: CallRecord): void {
    const attempt = this.attemptOf(buyerId, record);
    if (this.late) this.late(attempt);
    else this.attempts.push(attempt);
  }

  private attemptOf(buyerId: string, call: Omit<CallRecord, 'kind'> & { kind: BuyerAttemptKind }): AttemptRecord {
    return {
      id: newId('att', call.startedAt),
      leadId: this.leadId,
      buyerId,
      kind: call.kind,
      startedAt: call.startedAt,
      ...storedCall(call),
    };
  }
}

/** A call's result as the audit trail stores it: its duration to the hundredth, its texts cut to the columns. */
export function storedCall(
  call: Omit<CallRecord, 'kind' | 'startedAt'>,
): Pick<AttemptRecord, 'durationMs' | 'outcome' | 'httpStatus' | 'bidCents' | 'priceCents' | 'reference' | 'reason'> {
  return {
    durationMs: Math.round(call.durationMs * 100) / 100,
    outcome: call.outcome,
    httpStatus: call.httpStatus,
    bidCents: call.bidCents ?? null,
    priceCents: call.priceCents ?? null,
    reference: call.reference?.slice(0, 200) ?? null,
    reason: call.reason?.slice(0, 500) ?? null,
  };
}
