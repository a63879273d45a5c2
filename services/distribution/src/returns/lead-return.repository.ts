import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';
import type { LeadReturnRow } from '../db/schema.js';
import type { LeadReturn, ReturnedSale } from './lead-return.js';

function returnOfRow(row: LeadReturnRow): LeadReturn {
  return {
    id: row.id,
    leadId: row.lead_id,
    requestId: row.request_id,
    buyerId: row.buyer_id,
    publisherId: row.publisher_id,
    reason: row.reason,
    note: row.note ?? '',
    creditCents: Number(row.credit_cents),
    clawbackCents: Number(row.clawback_cents),
    marginCents: Number(row.margin_cents),
    soldAt: Number(row.sold_at),
    returnedAt: Number(row.returned_at),
  };
}

export function returnInsert(db: Db, leadReturn: LeadReturn): CompiledQuery {
  return db
    .insertInto('lead_returns')
    .values({
      id: leadReturn.id,
      lead_id: leadReturn.leadId,
      request_id: leadReturn.requestId,
      buyer_id: leadReturn.buyerId,
      publisher_id: leadReturn.publisherId,
      reason: leadReturn.reason,
      note: leadReturn.note === '' ? null : leadReturn.note,
      credit_cents: leadReturn.creditCents,
      clawback_cents: leadReturn.clawbackCents,
      margin_cents: leadReturn.marginCents,
      sold_at: leadReturn.soldAt,
      returned_at: leadReturn.returnedAt,
    })
    .compile();
}

export async function findReturnOfLead(db: Db, leadId: string): Promise<LeadReturn | undefined> {
  const row = await db.selectFrom('lead_returns').selectAll().where('lead_id', '=', leadId).executeTakeFirst();
  return row && returnOfRow(row);
}

export async function findReturnOfRequest(db: Db, requestId: string): Promise<LeadReturn | undefined> {
  const row = await db.selectFrom('lead_returns').selectAll().where('request_id', '=', requestId).executeTakeFirst();
  return row && returnOfRow(row);
}

export async function findSale(db: Db, leadId: string): Promise<ReturnedSale | undefined> {
  const row = await db
    .selectFrom('sales')
    .select(['lead_id', 'buyer_id', 'publisher_id', 'charge_cents', 'payout_cents', 'created_at'])
    .where('lead_id', '=', leadId)
    .executeTakeFirst();
  return (
    row && {
      leadId: row.lead_id,
      buyerId: row.buyer_id,
      publisherId: row.publisher_id,
      chargeCents: Number(row.charge_cents),
      payoutCents: Number(row.payout_cents),
      soldAt: Number(row.created_at),
    }
  );
}

/** A buyer's purchases since `since`, and how many of them it has returned. */
export async function purchasesAndReturns(
  db: Db,
  buyerId: string,
  since: number,
): Promise<{ bought: number; returned: number }> {
  const [bought, returned] = await Promise.all([
    db
      .selectFrom('sales')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('buyer_id', '=', buyerId)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('lead_returns')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('buyer_id', '=', buyerId)
      .where('sold_at', '>=', since)
      .executeTakeFirstOrThrow(),
  ]);
  return { bought: Number(bought.n), returned: Number(returned.n) };
}
