import { zonedClock } from '@leadflow/core/zoned-time';

/**
 * Every UTC offset in the time zone database since 1979 is a whole number of quarter hours, so each
 * quarter hour of UTC lies inside one local hour, and one local day, of every zone. The database groups
 * leads by UTC quarter hour with integer arithmetic, the same on both engines; Intl then puts each
 * quarter hour in its local bucket.
 */
export const QUARTER_HOUR_MS = 15 * 60 * 1000;

export type BucketUnit = 'day' | 'hour';

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** The local day ("2026-11-22") or hour ("2026-11-22T14") of `instant` in `timezone`. */
export function bucketKey(instant: number, unit: BucketUnit, timezone: string): string {
  const clock = zonedClock(new Date(instant), timezone);
  const day = `${clock.year}-${twoDigits(clock.month)}-${twoDigits(clock.day)}`;
  return unit === 'day' ? day : `${day}T${twoDigits(clock.hour)}`;
}
