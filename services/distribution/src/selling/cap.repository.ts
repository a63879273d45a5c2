import { sql } from 'kysely';
import type { CommitDurability } from '../db/commit-durability.js';
import type { Db } from '../db/database.js';
import { isDuplicateKeyError } from '../db/database.js';
import type { PeriodStarts, SalesUsage } from './buyer-usage.js';
import type { CapPeriod } from './cap-periods.js';

/**
 * Counts one lead (and its price) against each period, only if every period
 * stays within its limits; all or nothing. A conditional update under the
 * rows' locks is what keeps concurrent sales, on any instance, from
 * overshooting a cap. The lead's hold is written with the counts, so that it can
 * be given back. False when a cap is reached. With `durability`, its commit does not wait for the disk
 * (the caller's next write that waits takes it there).
 */
export async function reserveCapacity(
  db: Db,
  leadId: string,
  buyerId: string,
  periods: CapPeriod[],
  spendCents: number,
  durability?: CommitDurability,
): Promise<boolean> {
  if (periods.length === 0) return true;
  await createCounters(db, buyerId, periods);
  try {
    await db.transaction().execute(async (trx) => {
      durability?.syncLater();
      // One statement for every period: each row is counted only within its own limits, and a period
      // left out means a cap is reached.
      const result = await trx
        .updateTable('buyer_cap_counters')
        .set({ leads: sql`leads + 1`, spend_cents: sql`spend_cents + ${spendCents}` })
        .where('buyer_id', '=', buyerId)
        .where((eb) =>
          eb.or(
            periods.map((period) => {
              const conditions = [eb('period', '=', period.period)];
              if (period.maxLeads !== undefined) conditions.push(eb('leads', '<', period.maxLeads));
              if (period.maxSpendCents !== undefined)
                conditions.push(eb(sql<number>`spend_cents + ${spendCents}`, '<=', period.maxSpendCents));
              return eb.and(conditions);
            }),
          ),
        )
        .executeTakeFirst();
      if (result.numUpdatedRows !== BigInt(periods.length)) throw new CapReached();
      await trx
        .insertInto('buyer_cap_holds')
        .values({
          lead_id: leadId,
          buyer_id: buyerId,
          periods: JSON.stringify(periods.map((period) => period.period)),
          spend_cents: spendCents,
          held_at: Date.now(),
        })
        .execute();
    });
    return true;
  } catch (error) {
    if (error instanceof CapReached) return false;
    throw error;
  }
}

/** Counter rows known to exist, by store: they are never deleted, so each is created once per process. */
const knownCounters = new WeakMap<Db, Set<string>>();
/** A bound on what is remembered: a few periods per buyer are current at any time. */
const MAX_KNOWN_COUNTERS = 10_000;

/**
 * Creates the periods' counter rows that do not exist yet. They are created outside the counting
 * transaction: a failed insert inside it would hold a shared lock on MySQL and deadlock two leads opening
 * a period together.
 */
async function createCounters(db: Db, buyerId: string, periods: CapPeriod[]): Promise<void> {
  let known = knownCounters.get(db);
  if (!known || known.size >= MAX_KNOWN_COUNTERS) {
    known = new Set();
    knownCounters.set(db, known);
  }
  for (const period of periods) {
    const key = `${buyerId} ${period.period}`;
    if (known.has(key)) continue;
    try {
      await db
        .insertInto('buyer_cap_counters')
        .values({ buyer_id: buyerId, period: period.period, leads: 0, spend_cents: 0 })
        .execute();
    } catch (error) {
      // Another lead opened this period first; its row is the one to count in.
      if (!isDuplicateKeyError(error)) throw error;
    }
    known.add(key);
  }
}

/**
 * Gives back what the lead holds of the buyer's caps: its count and spend. Nothing when it holds nothing.
 * In the caller's transaction when `db` is one (a settlement that gives the holds back with its outcome).
 */
export async function releaseCapacity(db: Db, leadId: string, buyerId: string): Promise<void> {
  const inTransaction = (work: (trx: Db) => Promise<void>) =>
    db.isTransaction ? work(db) : db.transaction().execute(work);
  await inTransaction(async (trx) => {
    const hold = await trx
      .selectFrom('buyer_cap_holds')
      .selectAll()
      .where('lead_id', '=', leadId)
      .where('buyer_id', '=', buyerId)
      .executeTakeFirst();
    if (!hold) return;
    const periods = JSON.parse(hold.periods) as string[];
    if (periods.length > 0) {
      await trx
        .updateTable('buyer_cap_counters')
        .set({ leads: sql`leads - 1`, spend_cents: sql`spend_cents - ${hold.spend_cents}` })
        .where('buyer_id', '=', buyerId)
        .where('period', 'in', periods)
        .execute();
    }
    await trx.deleteFrom('buyer_cap_holds').where('lead_id', '=', leadId).where('buyer_id', '=', buyerId).execute();
  });
}

/** Gives back every hold of a lead whose sale was cut off (the process selling it died, or storage failed). */
export async function releaseLeadCapacity(db: Db, leadId: string): Promise<void> {
  const holds = await db.selectFrom('buyer_cap_holds').select('buyer_id').where('lead_id', '=', leadId).execute();
  for (const hold of holds) await releaseCapacity(db, leadId, hold.buyer_id);
}

/**
 * A sale keeps what it held: the hold is consumed in the transaction that records the sale. The spend
 * counted moves to the sale's price where the hold was of another amount (a sale resolved by an operator
 * for a buyer that names its price in its answer).
 */
export async function consumeCapacity(db: Db, leadId: string, buyerId: string, chargeCents: number): Promise<void> {
  const hold = await db
    .selectFrom('buyer_cap_holds')
    .selectAll()
    .where('lead_id', '=', leadId)
    .where('buyer_id', '=', buyerId)
    .executeTakeFirst();
  if (!hold) return;
  const periods = JSON.parse(hold.periods) as string[];
  if (periods.length > 0 && hold.spend_cents !== chargeCents) {
    await db
      .updateTable('buyer_cap_counters')
      .set({ spend_cents: sql`spend_cents + ${chargeCents - hold.spend_cents}` })
      .where('buyer_id', '=', buyerId)
      .where('period', 'in', periods)
      .execute();
  }
  await db.deleteFrom('buyer_cap_holds').where('lead_id', '=', leadId).where('buyer_id', '=', buyerId).execute();
}

/** Moves the spend counted for a sale to its final price (a price the buyer named in its answer). */
export async function adjustSpend(
  db: Db,
  leadId: string,
  buyerId: string,
  periods: CapPeriod[],
  deltaCents: number,
): Promise<void> {
  if (periods.length === 0 || deltaCents === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('buyer_cap_counters')
      .set({ spend_cents: sql`spend_cents + ${deltaCents}` })
      .where('buyer_id', '=', buyerId)
      .where(
        'period',
        'in',
        periods.map((period) => period.period),
      )
      .execute();
    await trx
      .updateTable('buyer_cap_holds')
      .set({ spend_cents: sql`spend_cents + ${deltaCents}` })
      .where('lead_id', '=', leadId)
      .where('buyer_id', '=', buyerId)
      .execute();
  });
}

export async function readCounters(
  db: Db,
  buyerIds: string[],
  periods: string[],
): Promise<Map<string, { leads: number; spendCents: number }>> {
  const counters = new Map<string, { leads: number; spendCents: number }>();
  if (buyerIds.length === 0 || periods.length === 0) return counters;
  const rows = await db
    .selectFrom('buyer_cap_counters')
    .selectAll()
    .where('buyer_id', 'in', buyerIds)
    .where('period', 'in', periods)
    .execute();
  for (const row of rows)
    counters.set(`${row.buyer_id} ${row.period}`, { leads: row.leads, spendCents: row.spend_cents });
  return counters;
}

/** The buyer's sales since each of its periods began. */
export async function countSales(db: Db, buyerId: string, since: PeriodStarts): Promise<SalesUsage> {
  const row = await db
    .selectFrom('sales')
    .select([
      sql<number | string | null>`sum(case when created_at >= ${since.hour} then 1 else 0 end)`.as('hour_leads'),
      sql<number | string | null>`sum(case when created_at >= ${since.day} then 1 else 0 end)`.as('day_leads'),
      sql<number | string>`count(*)`.as('month_leads'),
      sql<number | string | null>`sum(case when created_at >= ${since.day} then charge_cents else 0 end)`.as(
        'day_spend',
      ),
    ])
    .where('buyer_id', '=', buyerId)
    .where('created_at', '>=', since.month)
    .executeTakeFirstOrThrow();
  // MySQL sums are DECIMAL, which the driver hands over as strings.
  return {
    leadsThisHour: Number(row.hour_leads ?? 0),
    leadsToday: Number(row.day_leads ?? 0),
    leadsThisMonth: Number(row.month_leads),
    spendTodayCents: Number(row.day_spend ?? 0),
  };
}

class CapReached extends Error {}

/**
 * What is left of the tightest spend cap among the periods, or undefined when
 * none caps spend. A buyer that names its price only in its answer holds all of
 * it while it decides, so that concurrent leads cannot spend it twice.
 */
export async function spendHeadroom(db: Db, buyerId: string, periods: CapPeriod[]): Promise<number | undefined> {
  const capped = periods.filter((period) => period.maxSpendCents !== undefined);
  if (capped.length === 0) return undefined;
  const counters = await readCounters(
    db,
    [buyerId],
    capped.map((period) => period.period),
  );
  return Math.min(
    ...capped.map((period) => period.maxSpendCents! - (counters.get(`${buyerId} ${period.period}`)?.spendCents ?? 0)),
  );
}
