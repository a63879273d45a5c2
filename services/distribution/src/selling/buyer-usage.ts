import { startOfDay } from '@leadflow/core/day-start';
import { zonedClock } from '@leadflow/core/zoned-time';
import type { Db } from '../db/database.js';
import { countSales } from './cap.repository.js';

/** A buyer's live sales this hour, day and month of its time zone. */
export interface SalesUsage {
  leadsThisHour: number;
  leadsToday: number;
  leadsThisMonth: number;
  spendTodayCents: number;
}

/** When the current hour, day and month began, as epoch ms. */
export interface PeriodStarts {
  hour: number;
  day: number;
  month: number;
}

/** When the current hour, day and month began in `timezone`. */
export function periodStarts(now: Date, timezone: string): PeriodStarts {
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
  return countSales(db, buyerId, periodStarts(now, timezone));
}
