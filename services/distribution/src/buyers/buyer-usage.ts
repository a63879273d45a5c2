import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { startOfDay } from '../reports/day-start.js';
import { zonedClock } from './rules/zoned-time.js';

/** A buyer's live sales this hour, day and month of its time zone. */
export interface SalesUsage {
  leadsThisHour: number;
  leadsToday: number;
  leadsThisMonth: number;
  spendTodayCents: number;
}

/** When the current hour, day and month began in `timezone`, as epoch ms. */
export function periodStarts(now: Date, timezone: string): { hour: number; day: number; month: number } {
  const clock = zonedClock(now, timezone);
  // Offsets are whole minutes: the hour began clock.minute minutes before this minute did.
  const minuteStart = Math.floor(now.getTime() / 60_000) * 60_000;
  return {
    hour: minuteStart - clock.minute * 60_000,
    day: startOfDay({ year: clock.year, month: clock.month, day: clock.day }, timezone),
    month: startOfDay({ year: clock.year, month: clock.month, day: 1 }, timezone),
  };
}

/** The buyer's sales (live leads only: a test lead records none) in its current periods. */
export async function salesUsage(db: Db, buyerId: string, now: Date, timezone: string): Promise<SalesUsage> {
  const { hour, day, month } = periodStarts(now, timezone);
  const row = await db
    .selectFrom('sales')
    .select([
      sql<number | string | null>`sum(case when created_at >= ${hour} then 1 else 0 end)`.as('hour_leads'),
      sql<number | string | null>`sum(case when created_at >= ${day} then 1 else 0 end)`.as('day_leads'),
      sql<number | string>`count(*)`.as('month_leads'),
      sql<number | string | null>`sum(case when created_at >= ${day} then charge_cents else 0 end)`.as('day_spend'),
    ])
    .where('buyer_id', '=', buyerId)
    .where('created_at', '>=', month)
    .executeTakeFirstOrThrow();
  // MySQL sums are DECIMAL, which the driver hands over as strings.
  return {
    leadsThisHour: Number(row.hour_leads ?? 0),
    leadsToday: Number(row.day_leads ?? 0),
    leadsThisMonth: Number(row.month_leads),
    spendTodayCents: Number(row.day_spend ?? 0),
  };
}
