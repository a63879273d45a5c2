export interface CalendarDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A YYYY-MM-DD date that exists in the Gregorian calendar ("2023-02-29" does not), else undefined. */
export function parseCalendarDate(text: string): CalendarDate | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return { year, month, day };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * Completed years from birth to the UTC calendar day of `now`. Someone born on 29 February becomes a
 * year older on 1 March in common years.
 */
export function ageInYears(birth: CalendarDate, now: Date): number {
  const month = now.getUTCMonth() + 1;
  const day = now.getUTCDate();
  const birthdayStillAhead = month < birth.month || (month === birth.month && day < birth.day);
  return now.getUTCFullYear() - birth.year - (birthdayStillAhead ? 1 : 0);
}
