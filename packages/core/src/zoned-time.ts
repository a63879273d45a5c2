/** Monday first, as the week of a schedule reads. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export type Weekday = (typeof WEEKDAYS)[number];

/** A moment as the wall clock and calendar of one time zone show it. */
export interface ZonedClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: Weekday;
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

/**
 * The wall clock of `timezone` at `now`, from the time zone database through Intl: daylight saving time
 * changes need no arithmetic here. Throws a RangeError for a zone Intl does not know.
 */
export function zonedClock(now: Date, timezone: string): ZonedClock {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatterFor(timezone).formatToParts(now)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: (parts.weekday ?? '').toLowerCase() as Weekday,
  };
}

/** The zone's canonical IANA name ("america/new_york" -> "America/New_York"), undefined when Intl does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
