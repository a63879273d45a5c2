import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';
import { insertRows, rowsInsert } from '../db/insert-rows.js';
import { ReusableQuery } from '../db/reusable-query.js';
import type { BuyerAttemptRow, LeadRow, LeadStatus, LeadUpdate, NewLeadRow, NewSaleRow } from '../db/schema.js';
import type { AttemptRecord, PostSettlement } from './attempt-record.js';
import type { Sale } from './sale.js';
import type { LeadChange, StoredLead, UnconfirmedLead } from './stored-lead.js';

/** Which leads a list covers; every filter left undefined matches every lead. */
export interface LeadFilter {
  status?: LeadStatus;
  publisherId?: string;
  /** The buyer a lead was sold to. */
  buyerId?: string;
  /** Created in [fromMs, toMs). */
  fromMs?: number;
  toMs?: number;
}

/** Newest first: the creation time, then the id, of the last lead of the previous page. */
export interface LeadListCursor {
  createdAt: number;
  id: string;
}

/** The row of a stored lead; also how tests write the rows of an older release. */
export function leadRow(lead: StoredLead): NewLeadRow {
  return {
    id: lead.id,
    publisher_id: lead.publisherId,
    clickid: lead.clickid,
    fingerprint: lead.fingerprint,
    status: lead.status,
    is_test: lead.test ? 1 : 0,
    claim_token: lead.claimToken,
    claimed_at: lead.claimedAt,
    created_at: lead.createdAt,
    completed_at: lead.completedAt,
    price_floor_cents: lead.priceFloorCents,
    loan_amount_cents: lead.loanAmountCents,
    income_net_monthly_cents: lead.incomeNetMonthlyCents,
    state: lead.state,
    ssn_hash: lead.person.ssn,
    email_hash: lead.person.email,
    phone_hash: lead.person.phone,
    fields: lead.fieldsJson,
    sensitive: lead.sensitive,
    sensitive_purged_at: lead.sensitivePurgedAt,
    tracking: lead.trackingJson,
    buyer_id: lead.buyerId,
    payout_cents: lead.payoutCents,
    redirect_url: lead.redirectUrl,
    reason: lead.reason,
    processing_ms: lead.processingMs,
  };
}

function leadOfRow(row: LeadRow): StoredLead {
  return {
    id: row.id,
    publisherId: row.publisher_id,
    clickid: row.clickid,
    fingerprint: row.fingerprint,
    status: row.status,
    test: row.is_test === 1,
    claimToken: row.claim_token,
    claimedAt: row.claimed_at,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    priceFloorCents: row.price_floor_cents,
    loanAmountCents: row.loan_amount_cents,
    incomeNetMonthlyCents: row.income_net_monthly_cents,
    state: row.state,
    person: { ssn: row.ssn_hash, email: row.email_hash, phone: row.phone_hash },
    fieldsJson: row.fields,
    sensitive: row.sensitive,
    sensitivePurgedAt: row.sensitive_purged_at,
    trackingJson: row.tracking,
    buyerId: row.buyer_id,
    payoutCents: row.payout_cents,
    redirectUrl: row.redirect_url,
    reason: row.reason,
    processingMs: row.processing_ms,
  };
}

/** The columns a change sets; those it leaves undefined are left as they are. */
function changeRow(change: LeadChange): LeadUpdate {
  return {
    status: change.status,
    claimed_at: change.claimedAt,
    completed_at: change.completedAt,
    buyer_id: change.buyerId,
    payout_cents: change.payoutCents,
    redirect_url: change.redirectUrl,
    reason: change.reason,
    processing_ms: change.processingMs,
  };
}

/** The insert of a new lead, to run with others. */
export function leadInsert(db: Db, lead: StoredLead): CompiledQuery {
  return rowsInsert(db, 'leads', [leadRow(lead)])!;
}

export async function findLead(db: Db, id: string): Promise<StoredLead | undefined> {
  const row = await db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirst();
  return row && leadOfRow(row);
}

export async function findLeadByClickid(db: Db, publisherId: string, clickid: string): Promise<StoredLead | undefined> {
  const row = await db
    .selectFrom('leads')
    .selectAll()
    .where('publisher_id', '=', publisherId)
    .where('clickid', '=', clickid)
    .executeTakeFirst();
  return row && leadOfRow(row);
}

/** Up to `limit` leads with this clickid, of one publisher or of any, oldest first. */
export async function findLeadsByClickid(
  db: Db,
  clickid: string,
  publisherId: string | undefined,
  limit: number,
): Promise<StoredLead[]> {
  let query = db.selectFrom('leads').selectAll().where('clickid', '=', clickid);
  if (publisherId !== undefined) query = query.where('publisher_id', '=', publisherId);
  const rows = await query.orderBy('created_at').limit(limit).execute();
  return rows.map(leadOfRow);
}

/** Up to `limit` leads after the cursor, newest first. */
export async function listLeads(
  db: Db,
  filter: LeadFilter,
  after: LeadListCursor | undefined,
  limit: number,
): Promise<StoredLead[]> {
  let query = db.selectFrom('leads').selectAll();
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.publisherId !== undefined) query = query.where('publisher_id', '=', filter.publisherId);
  if (filter.buyerId !== undefined) query = query.where('buyer_id', '=', filter.buyerId);
  if (filter.fromMs !== undefined) query = query.where('created_at', '>=', filter.fromMs);
  if (filter.toMs !== undefined) query = query.where('created_at', '<', filter.toMs);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(leadOfRow);
}

/** Up to `limit` unconfirmed leads, oldest post first, after the one whose post is `after`. */
export async function listUnconfirmedLeads(
  db: Db,
  limit: number,
  after: { postedAt: number; postId: string } | undefined,
  /** Only the leads held for this buyer by a post made before `postedBefore`. */
  of?: { buyerId: string; postedBefore: number },
): Promise<UnconfirmedLead[]> {
  let query = db
    .selectFrom('leads')
    .innerJoin('lead_posts', 'lead_posts.lead_id', 'leads.id')
    .select([
      'leads.id',
      'leads.publisher_id',
      'leads.clickid',
      'leads.is_test',
      'lead_posts.id as post_id',
      'lead_posts.buyer_id',
      'lead_posts.created_at',
    ])
    .where('leads.status', '=', 'unconfirmed')
    .where('lead_posts.state', 'in', ['pending', 'unknown', 'accepted']);
  if (of)
    query = query.where('lead_posts.buyer_id', '=', of.buyerId).where('lead_posts.created_at', '<', of.postedBefore);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('lead_posts.created_at', '>', after.postedAt),
        eb.and([eb('lead_posts.created_at', '=', after.postedAt), eb('lead_posts.id', '>', after.postId)]),
      ]),
    );
  }
  const rows = await query.orderBy('lead_posts.created_at').orderBy('lead_posts.id').limit(limit).execute();
  return rows.map((row) => ({
    leadId: row.id,
    publisherId: row.publisher_id,
    clickid: row.clickid,
    buyerId: row.buyer_id,
    postId: row.post_id,
    postedAt: row.created_at,
    test: row.is_test === 1,
  }));
}

export async function countUnconfirmedLeads(db: Db): Promise<number> {
  const row = await db
    .selectFrom('leads')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'unconfirmed')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** When the post of the longest-held unconfirmed lead was made (epoch ms); undefined when none is held. */
export async function oldestUnconfirmedPostAt(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('leads')
    .innerJoin('lead_posts', 'lead_posts.lead_id', 'leads.id')
    .select((eb) => eb.fn.min<number>('lead_posts.created_at').as('oldest'))
    .where('leads.status', '=', 'unconfirmed')
    .where('lead_posts.state', 'in', ['pending', 'unknown', 'accepted'])
    .executeTakeFirst();
  return row?.oldest == null ? undefined : Number(row.oldest);
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

const completeUnderClaim = new ReusableQuery(
  (db: Db, values: { leadId: string; claimToken: string; row: LeadUpdate }) =>
    db
      .updateTable('leads')
      .set(values.row)
      .where('id', '=', values.leadId)
      .where('status', '=', 'processing')
      .where('claim_token', '=', values.claimToken),
);

/** Writes the outcome of a lead still held under this claim; no row is affected when the claim was lost. */
export function completionUpdate(db: Db, leadId: string, claimToken: string, outcome: LeadChange): CompiledQuery {
  return completeUnderClaim.compile(db, { leadId, claimToken, row: changeRow(outcome) });
}

const settleOpenLead = new ReusableQuery((db: Db, values: { leadId: string; row: LeadUpdate }) =>
  db
    .updateTable('leads')
    .set(values.row)
    .where('id', '=', values.leadId)
    .where('status', 'in', ['processing', 'unconfirmed']),
);

/**
 * Writes a sale's outcome on a lead that has none yet: one being sold, or one waiting for a buyer's
 * confirmation. Whoever holds the claim, the accepted post is the proof.
 */
export async function settleLead(db: Db, leadId: string, outcome: LeadChange): Promise<boolean> {
  const result = await db.executeQuery(settlementUpdate(db, leadId, outcome));
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** `settleLead`'s statement, to run with others; no row is affected when the lead has an outcome. */
export function settlementUpdate(db: Db, leadId: string, outcome: LeadChange): CompiledQuery {
  return settleOpenLead.compile(db, { leadId, row: changeRow(outcome) });
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

/**
 * A post's answer that came after its lead was recorded held, written over the post's `unknown` line of
 * the audit trail (one line a post, as the buyers' learned figures read them). False when there was no
 * such line: the answer was written already, or the lead's record never got that far.
 */
export async function recordLatePostAnswer(
  db: Db,
  leadId: string,
  buyerId: string,
  answer: Pick<AttemptRecord, 'durationMs' | 'outcome' | 'httpStatus' | 'priceCents' | 'reference' | 'reason'>,
): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('buyer_attempts')
    .set({
      duration_ms: answer.durationMs,
      outcome: answer.outcome,
      http_status: answer.httpStatus,
      price_cents: answer.priceCents,
      reference: answer.reference,
      reason: answer.reason,
    })
    .where('lead_id', '=', leadId)
    .where('buyer_id', '=', buyerId)
    .where('kind', '=', 'post')
    .where('outcome', '=', 'unknown')
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** `insertBuyerAttempts`'s statement, to run with others; none for no attempts. */
export function attemptsInsert(db: Db, attempts: readonly AttemptRecord[]): CompiledQuery | undefined {
  return rowsInsert(db, 'buyer_attempts', attempts.map(attemptRow));
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

/** The lead's posts settled after their call, for its audit trail; a lead and a buyer have one post at most. */
export async function listPostSettlements(db: Db, leadId: string): Promise<PostSettlement[]> {
  const rows = await db
    .selectFrom('lead_posts')
    .select(['buyer_id', 'state', 'charge_cents', 'resolved_by'])
    .where('lead_id', '=', leadId)
    .where('resolved_by', 'is not', null)
    .execute();
  return rows.map((row) => ({
    buyerId: row.buyer_id,
    state: row.state,
    chargeCents: row.charge_cents === null ? null : Number(row.charge_cents),
    resolvedBy: row.resolved_by!,
  }));
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

export function saleInsert(db: Db, sale: Sale): CompiledQuery {
  return rowsInsert(db, 'sales', [saleRow(sale)])!;
}
