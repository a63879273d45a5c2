import { WEEKDAYS, type Weekday, zonedClock } from '@leadflow/core/zoned-time';
import type { Schedule } from '../definition/buyer-definition.js';

function minuteOfDay(time: string): number {
  const [hours, minutes] = time.split(':');
  return Number(hours) * 60 + Number(minutes);
}

function dayBefore(day: Weekday): Weekday {
  return WEEKDAYS[(WEEKDAYS.indexOf(day) + WEEKDAYS.length - 1) % WEEKDAYS.length];
}

/**
 * Whether the buyer takes leads at `now`; no schedule = always. Days and hours are read on the wall
 * clock of the schedule's zone, so a window keeps its local hours across daylight saving time changes.
 * Hours that wrap past midnight (20:00 to 02:00) belong to the day they open on: with days [fri], such
 * a window is open from Friday 20:00 to Saturday 02:00.
 */
export function isOpen(schedule: Schedule | undefined, now: Date): boolean {
  if (!schedule) return true;
  const clock = zonedClock(now, schedule.timezone);
  if (!schedule.hours) return schedule.days.includes(clock.weekday);
  const minute = clock.hour * 60 + clock.minute;
  const from = minuteOfDay(schedule.hours.from);
  const to = minuteOfDay(schedule.hours.to);
  if (from < to) return minute >= from && minute < to && schedule.days.includes(clock.weekday);
  if (minute >= from) return schedule.days.includes(clock.weekday);
  return minute < to && schedule.days.includes(dayBefore(clock.weekday));
}
