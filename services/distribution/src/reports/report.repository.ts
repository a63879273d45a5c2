import { type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, LedgerEntryType } from '../db/schema.js';
import type { Figures } from './report-figures.js';
import type { ReportScope } from './report-request.js';
import { QUARTER_HOUR_MS } from './time-buckets.js';

/**
 * What figures are grouped by: the lead's publisher, the UTC quarter hour it was created in, nothing
 * (the total), or the buyer: the one called for calls, offered leads and their processing times, the
 * one sold to for sales and money.
 *
 * A buyer is posted a lead at most once (the ping tree tries each buyer once, and a lead's attempts
 * are written in one transaction), so a buyer's posts are the leads it was offered.
 */
export type GroupKey = 'publisher' | 'quarterHour' | 'buyer' | 'none';

/** Part of the figures of the group `key`. */
export type KeyedPart = Partial<Figures> & { key: string };

type LeadGroup = Exclude<GroupKey, 'buyer'> | 'soldTo';

function leadGroup(group: LeadGroup): RawBuilder<unknown> {
  switch (group) {
    case 'publisher':
      return sql.ref('leads.publisher_id');
    case 'soldTo':
      return sql.ref('leads.buyer_id');
    case 'quarterHour':
      return sql`leads.created_at - leads.created_at % ${sql.lit(QUARTER_HOUR_MS)}`;
    case 'none':
      return sql.lit('');
  }
}

function inScope(eb: ExpressionBuilder<Database, 'leads'>, scope: ReportScope): Expression<SqlBool> {
  return eb.and([
    ...(scope.fromMs > 0 ? [eb('leads.created_at', '>=', scope.fromMs)] : []),
    ...(scope.toMs > 0 ? [eb('leads.created_at', '<', scope.toMs)] : []),
    ...(scope.includeTest ? [] : [eb('leads.is_test', '=', 0)]),
  ]);
}

/** SUM(CASE WHEN condition THEN value ELSE 0 END). */
function sumWhen<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  condition: Expression<SqlBool>,
  value: Expression<number> | number = 1,
) {
  return eb.fn.sum<number | string | null>(eb.case().when(condition).then(value).else(0).end());
}

/** A count or sum as a number: MySQL answers SUM as a DECIMAL string, either engine NULL over no rows. */
const count = (value: number | string | bigint | null) => Number(value ?? 0);

/** Leads and sold leads; for buyers, the leads each bought (callCounts counts the ones it was offered). */
export async function leadCounts(db: Db, scope: ReportScope, key: GroupKey): Promise<KeyedPart[]> {
  if (key === 'buyer') return boughtLeads(db, scope);
  const group = leadGroup(key);
  const rows = await db
    .selectFrom('leads')
    .select((eb) => [
      group.as('group_key'),
      eb.fn.countAll<number>().as('leads'),
      sumWhen(eb, eb('leads.status', '=', 'sold')).as('sold'),
    ])
    .where((eb) => inScope(eb, scope))
    .$if(key !== 'none', (query) => query.groupBy(group))
    .execute();
  return rows.map((row) => ({ key: String(row.group_key), leads: count(row.leads), sold: count(row.sold) }));
}

async function boughtLeads(db: Db, scope: ReportScope): Promise<KeyedPart[]> {
  const rows = await db
    .selectFrom('leads')
    .select((eb) => ['leads.buyer_id', eb.fn.countAll<number>().as('sold')])
    .where((eb) => inScope(eb, scope))
    .where('leads.status', '=', 'sold')
    .groupBy('leads.buyer_id')
    .execute();
  return rows.map((row) => ({ key: String(row.buyer_id), sold: count(row.sold) }));
}

/**
 * Revenue, payouts and margin from the ledger entries of the leads, to the cent, and what their returns
 * moved back (a return's credit entry counts the return).
 */
export async function ledgerSums(db: Db, scope: ReportScope, key: GroupKey): Promise<KeyedPart[]> {
  const group = leadGroup(key === 'buyer' ? 'soldTo' : key);
  const rows = await db
    .selectFrom('ledger_entries')
    .innerJoin('leads', 'leads.id', 'ledger_entries.lead_id')
    .select((eb) => {
      const entries = (type: LedgerEntryType) =>
        sumWhen(eb, eb('ledger_entries.entry_type', '=', type), eb.ref('ledger_entries.amount_cents'));
      return [
        group.as('group_key'),
        entries('buyer_charge').as('charged'),
        entries('publisher_payout').as('paid'),
        entries('platform_margin').as('kept'),
        sumWhen(eb, eb('ledger_entries.entry_type', '=', 'buyer_return_credit')).as('returns'),
        entries('buyer_return_credit').as('credited'),
        entries('publisher_clawback').as('clawed_back'),
        entries('platform_return').as('borne'),
      ];
    })
    .where((eb) => inScope(eb, scope))
    .$if(key !== 'none', (query) => query.groupBy(group))
    .execute();
  return rows.map((row) => ({
    key: String(row.group_key),
    // Buyer charges are booked negative.
    revenueCents: -count(row.charged),
    payoutCents: count(row.paid),
    marginCents: count(row.kept),
    returns: count(row.returns),
    // A return credits the buyer (positive) and books the clawback and the network's share negative.
    returnedRevenueCents: count(row.credited),
    returnedPayoutCents: 0 - count(row.clawed_back),
    returnedMarginCents: 0 - count(row.borne),
  }));
}

/**
 * Pings and posts made; for buyers, their posts are also the leads they were offered. A timeout is a
 * call whose answer did not come in time: a ping's "timeout" or a post's "unknown" (the buyer may have
 * the lead), which unknownOutcomes counts on its own.
 */
export async function callCounts(db: Db, scope: ReportScope, key: GroupKey): Promise<KeyedPart[]> {
  const group = key === 'buyer' ? sql.ref('buyer_attempts.buyer_id') : leadGroup(key);
  const rows = await db
    .selectFrom('buyer_attempts')
    .innerJoin('leads', 'leads.id', 'buyer_attempts.lead_id')
    .select((eb) => {
      const post = eb('buyer_attempts.kind', '=', 'post');
      return [
        group.as('group_key'),
        sumWhen(eb, post).as('posts'),
        sumWhen(eb, eb.and([post, eb('buyer_attempts.outcome', '=', 'accepted')])).as('accepted'),
        sumWhen(eb, eb('buyer_attempts.outcome', 'in', ['timeout', 'unknown'])).as('timeouts'),
        sumWhen(eb, eb('buyer_attempts.outcome', '=', 'error')).as('errors'),
        sumWhen(eb, eb.and([post, eb('buyer_attempts.outcome', '=', 'unknown')])).as('unknown'),
      ];
    })
    .where((eb) => inScope(eb, scope))
    .where('buyer_attempts.kind', '<>', 'skip')
    .$if(key !== 'none', (query) => query.groupBy(group))
    .execute();
  return rows.map((row) => ({
    key: String(row.group_key),
    ...(key === 'buyer' ? { leads: count(row.posts) } : {}),
    posts: count(row.posts),
    acceptedPosts: count(row.accepted),
    timeouts: count(row.timeouts),
    errors: count(row.errors),
    unknownOutcomes: count(row.unknown),
  }));
}

/**
 * processing_ms of every completed lead, streamed: only the group and that column leave the database.
 * For buyers, of the leads each was posted.
 */
export async function processingTimes(db: Db, scope: ReportScope, key: GroupKey): Promise<KeyedPart[]> {
  const rows =
    key === 'buyer'
      ? db
          .selectFrom('buyer_attempts')
          .innerJoin('leads', 'leads.id', 'buyer_attempts.lead_id')
          .select(['buyer_attempts.buyer_id as group_key', 'leads.processing_ms'])
          .where((eb) => inScope(eb, scope))
          .where('buyer_attempts.kind', '=', 'post')
          .where('leads.processing_ms', 'is not', null)
          .stream()
      : db
          .selectFrom('leads')
          .select([leadGroup(key).as('group_key'), 'leads.processing_ms'])
          .where((eb) => inScope(eb, scope))
          .where('leads.processing_ms', 'is not', null)
          .stream();
  const times = new Map<string, number[]>();
  for await (const row of rows) {
    const group = String(row.group_key);
    let values = times.get(group);
    if (!values) {
      values = [];
      times.set(group, values);
    }
    values.push(row.processing_ms!);
  }
  return [...times].map(([group, processingMs]) => ({ key: group, processingMs }));
}

/** Names by id of every publisher or buyer. */
export async function namesById(db: Db, table: 'publishers' | 'buyers'): Promise<Map<string, string>> {
  const rows = await db.selectFrom(table).select(['id', 'name']).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
