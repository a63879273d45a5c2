/** Monday first, as the week of a schedule reads. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export type Weekday = (typeof WEEKDAYS)[number];

/** A moment as the wall clock and calendar of one time zone show it. */
export interface ZonedClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly weekday: Weekday;
}

// Building a DateTimeFormat costs far more than using one; there are only as many as buyers' zones.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The clock of each zone's latest minute asked for, by zone. */
const lastClocks = new Map<string, { minute: number; clock: ZonedClock }>();

/**
 * The wall clock of `timezone` at `now`, from the time zone database through Intl: daylight saving time
 * changes need no arithmetic here. Throws a RangeError for a zone Intl does not know.
 */
export function zonedClock(now: Date, timezone: string): ZonedClock {
  // Every lead reads the clock of each buyer's zone, often within the same minute: that minute's clock is
  // kept per zone (the formatter shows no seconds, and today's zones change their offset on whole minutes).
  const minute = Math.floor(now.getTime() / 60_000);
  const last = lastClocks.get(timezone);
  if (last?.minute === minute) return last.clock;
  const clock = clockOf(now, timezone);
  lastClocks.set(timezone, { minute, clock });
  return clock;
}

function clockOf(now: Date, timezone: string): ZonedClock {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatterFor(timezone).formatToParts(now)) parts[part.type] = part.value;
  return Object.freeze({
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: (parts.weekday ?? '').toLowerCase() as Weekday,
  });
}

/** The zone's canonical IANA name ("america/new_york" -> "America/New_York"), undefined when Intl does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
