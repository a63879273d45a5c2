import type { AttemptRecord } from '../buyers/attempt-record.js';
import type { Db } from '../db/database.js';
import { insertRows } from '../db/insert-rows.js';
import type { BuyerAttemptRow, LeadRow, LeadUpdate, NewLeadRow, NewSaleRow } from '../db/schema.js';
import type { Sale } from './sale.js';

export async function insertLead(db: Db, lead: NewLeadRow): Promise<void> {
  await insertRows(db, 'leads', [lead]);
}

export async function findLead(db: Db, id: string): Promise<LeadRow | undefined> {
  return db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findLeadByClickid(db: Db, publisherId: string, clickid: string): Promise<LeadRow | undefined> {
  return db
    .selectFrom('leads')
    .selectAll()
    .where('publisher_id', '=', publisherId)
    .where('clickid', '=', clickid)
    .executeTakeFirst();
}

/** Moves a stale claim to a new owner; false when someone else moved it first. */
export async function takeOverClaim(
  db: Db,
  leadId: string,
  staleToken: string,
  claimToken: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set({ claim_token: claimToken, claimed_at: now })
    .where('id', '=', leadId)
    .where('status', '=', 'processing')
    .where('claim_token', '=', staleToken)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A claim given back: stale at once, so the next request for the lead takes it over. */
export const RELEASED_CLAIM_AT = 0;

export async function releaseClaim(db: Db, leadId: string, claimToken: string): Promise<void> {
  await db
    .updateTable('leads')
    .set({ claimed_at: RELEASED_CLAIM_AT })
    .where('id', '=', leadId)
    .where('status', '=', 'processing')
    .where('claim_token', '=', claimToken)
    .execute();
}

/** Writes the outcome of a lead still held under this claim; false when the claim was lost. */
export async function completeLead(db: Db, leadId: string, claimToken: string, outcome: LeadUpdate): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set(outcome)
    .where('id', '=', leadId)
    .where('status', '=', 'processing')
    .where('claim_token', '=', claimToken)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Writes a sale's outcome on a lead that has none yet: one being sold, or one waiting for a buyer's
 * confirmation. Whoever holds the claim, the accepted post is the proof.
 */
export async function settleLead(db: Db, leadId: string, outcome: LeadUpdate): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set(outcome)
    .where('id', '=', leadId)
    .where('status', 'in', ['processing', 'unconfirmed'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function attemptRow(attempt: AttemptRecord): BuyerAttemptRow {
  return {
    id: attempt.id,
    lead_id: attempt.leadId,
    buyer_id: attempt.buyerId,
    kind: attempt.kind,
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    outcome: attempt.outcome,
    http_status: attempt.httpStatus,
    bid_cents: attempt.bidCents,
    price_cents: attempt.priceCents,
    reference: attempt.reference,
    reason: attempt.reason,
  };
}

function attemptOfRow(row: BuyerAttemptRow): AttemptRecord {
  return {
    id: row.id,
    leadId: row.lead_id,
    buyerId: row.buyer_id,
    kind: row.kind,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    outcome: row.outcome,
    httpStatus: row.http_status,
    bidCents: row.bid_cents,
    priceCents: row.price_cents,
    reference: row.reference,
    reason: row.reason,
  };
}

export async function insertBuyerAttempts(db: Db, attempts: readonly AttemptRecord[]): Promise<void> {
  await insertRows(db, 'buyer_attempts', attempts.map(attemptRow));
}

export async function listBuyerAttempts(db: Db, leadId: string): Promise<AttemptRecord[]> {
  const rows = await db
    .selectFrom('buyer_attempts')
    .selectAll()
    .where('lead_id', '=', leadId)
    .orderBy('started_at')
    .orderBy('id')
    .execute();
  return rows.map(attemptOfRow);
}

function saleRow(sale: Sale): NewSaleRow {
  return {
    id: sale.id,
    lead_id: sale.leadId,
    publisher_id: sale.publisherId,
    buyer_id: sale.buyerId,
    charge_cents: sale.chargeCents,
    payout_cents: sale.payoutCents,
    margin_cents: sale.marginCents,
    created_at: sale.createdAt,
  };
}

export async function insertSale(db: Db, sale: Sale): Promise<void> {
  await insertRows(db, 'sales', [saleRow(sale)]);
}
