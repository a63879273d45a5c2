import type { BuyerAttemptKind, BuyerAttemptOutcome, BuyerAttemptRow } from '../db/schema.js';
import { newId } from '../ids.js';

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

/** Every ping, post and skip of one lead, in order, as the rows the audit trail keeps. */
export class AttemptLog {
  readonly rows: BuyerAttemptRow[] = [];
  private late: ((row: BuyerAttemptRow) => void) | undefined;

  constructor(private readonly leadId: string) {}

  /**
   * The sale is decided and `rows` go to its record: a call that ends later (a ping answered after its
   * window) is handed to `late` instead, so that the audit trail keeps it too.
   */
  close(late: (row: BuyerAttemptRow) => void): void {
    this.late = late;
  }

  /** Returns undefined so that a caller dropping a buyer can `return log.skip(...)`. */
  skip(buyerId: string, reason: SkipReason): undefined {
    const now = Date.now();
    this.rows.push(
      this.row(buyerId, { kind: 'skip', startedAt: now, durationMs: 0, outcome: 'skipped', httpStatus: null, reason }),
    );
    return undefined;
  }

  call(buyerId: string, record: CallRecord): void {
    const row = this.row(buyerId, record);
    if (this.late) this.late(row);
    else this.rows.push(row);
  }

  private row(buyerId: string, record: Omit<CallRecord, 'kind'> & { kind: BuyerAttemptKind }): BuyerAttemptRow {
    return {
      id: newId('att', record.startedAt),
      lead_id: this.leadId,
      buyer_id: buyerId,
      kind: record.kind,
      started_at: record.startedAt,
      duration_ms: Math.round(record.durationMs * 100) / 100,
      outcome: record.outcome,
      http_status: record.httpStatus,
      bid_cents: record.bidCents ?? null,
      price_cents: record.priceCents ?? null,
      reference: record.reference?.slice(0, 200) ?? null,
      reason: record.reason?.slice(0, 500) ?? null,
    };
  }
}
