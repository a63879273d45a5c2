import type { CalendarDate } from './calendar-date.js';
import { zonedClock } from './zoned-time.js';

const DAY_MS = 86_400_000;

/** How far the wall clock of `timezone` is ahead of UTC at `instant` (a whole minute), in ms. */
function offsetAt(instant: number, timezone: string): number {
  const clock = zonedClock(new Date(instant), timezone);
  return Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute) - instant;
}

/**
 * The instant `date` begins in `timezone`: the first time its clocks read midnight of that day, or,
 * where a daylight saving change skips midnight, the moment they jump into the day.
 */
export function startOfDay(date: CalendarDate, timezone: string): number {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  // Midnight read at the offset in force the day before, and at the one in force the day after.
  const readings = [midnight - offsetAt(midnight - DAY_MS, timezone), midnight - offsetAt(midnight + DAY_MS, timezone)];
  const exact = readings.filter((instant) => instant + offsetAt(instant, timezone) === midnight);
  // When no instant reads midnight, the clocks jumped over it: midnight at the old offset is the jump.
  return exact.length > 0 ? Math.min(...exact) : readings[0];
}
