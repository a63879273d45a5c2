/*
 * Buyers echo what they were sent ("duplicate SSN 123-45-6789", "john.doe@example.com already
 * registered"), and their reasons and references are stored in plain text, shown by `lead show` and
 * returned by the admin API. The applicant's personal values are taken out of them before anything
 * keeps them: numbers whatever separates their digits, dates in the usual US and ISO orders, text
 * whatever its case.
 */
import { SENSITIVE_LEAD_FIELDS } from '@leadflow/core/lead-fields';

export const REDACTED_VALUE = '[redacted]';

/** Shorter values (a two-letter first name) would be found inside unrelated words: they are left. */
const MIN_TEXT_LENGTH = 3;
/** A value with at least this many digits, and mostly digits, is matched as a number. */
const MIN_DIGITS = 6;
const SEPARATORS = '[\\s().\\-/]*';
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Digits and the separators numbers are written with: found as a number, not as text. */
const NUMBER_ONLY = /^[\d\s().\-/]*$/;

/** How each fields object's personal values may appear, found once: a lead's fields are one object for all its calls. */
const echoesOfFields = new WeakMap<Readonly<Record<string, string>>, readonly Echo[]>();

function personalEchoes(fields: Readonly<Record<string, string>>): readonly Echo[] {
  let echoes = echoesOfFields.get(fields);
  if (!echoes) {
    // Longest first: a name is part of the e-mail, which must be found whole.
    const values = SENSITIVE_LEAD_FIELDS.map((field) => fields[field] ?? '')
      .filter((value) => value !== '')
      .toSorted((a, b) => b.length - a.length);
    echoes = inMatchingOrder(values.flatMap(echoesOf));
    echoesOfFields.set(fields, echoes);
  }
  return echoes;
}

/** One way a personal value can appear in a buyer's text. */
interface Echo {
  /** Cheap test on the text (digits only, or lower-cased) before the pattern runs. */
  inDigits: boolean;
  needle: string;
  /** Built only when the needle is found: most texts hold no personal value. */
  pattern: () => RegExp;
}

/** `text` with every personal value of `fields` (a lead's fields by JSON name) replaced by REDACTED_VALUE. */
export function withoutPersonalValues(text: string, fields: Readonly<Record<string, string>>): string {
  const echoes = personalEchoes(fields);
  // A ping carries no personal field: its answers have nothing to look for.
  if (echoes.length === 0) return text;
  const digits = text.replace(/\D/g, '');
  const lower = text.toLowerCase();
  let result = text;
  for (const echo of echoes) {
    const haystack = echo.inDigits ? digits : lower;
    if (haystack.includes(echo.needle)) result = result.replace(echo.pattern(), REDACTED_VALUE);
  }
  return result;
}

/**
 * Values as written before any value's digits: taking the digits out of "Ann98986233983" first would
 * leave "Ann[redacted]", which the name as written no longer matches. A value as written holds a
 * character numbers are not written with, so it cannot be found inside a number and break its match.
 */
function inMatchingOrder(echoes: readonly Echo[]): Echo[] {
  return echoes.toSorted((a, b) => Number(a.inDigits) - Number(b.inDigits));
}

function echoesOf(value: string): Echo[] {
  const date = ISO_DATE.exec(value);
  if (date) {
    const [, year, month, day] = date as unknown as [string, string, string, string];
    return [dateEcho(year, [year, month, day]), dateEcho(year, [month, day, year])];
  }
  const echoes: Echo[] = [];
  const digits = value.replace(/\D/g, '');
  if (digits.length >= MIN_DIGITS && digits.length * 2 > value.length) {
    echoes.push({ inDigits: true, needle: digits, pattern: () => numberPattern([...digits]) });
  }
  // A value of mostly digits with letters among them ("Ann1234567", "12345678 Rd") is also found as written.
  const trimmed = value.trim();
  if (trimmed.length >= MIN_TEXT_LENGTH && !NUMBER_ONLY.test(trimmed)) {
    echoes.push({
      inDigits: false,
      needle: trimmed.toLowerCase(),
      pattern: () => new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(trimmed)}(?![\\p{L}\\p{N}])`, 'giu'),
    });
  }
  return echoes;
}

/**
 * A date's parts in one order, each month and day with or without its leading zero; any text whose
 * digits hold the year is searched.
 */
function dateEcho(year: string, parts: readonly string[]): Echo {
  const part = (text: string) => (text.length === 2 && text.startsWith('0') ? `0?${text[1]}` : text);
  return {
    inDigits: true,
    needle: year,
    pattern: () => new RegExp(`(?<!\\d)${parts.map(part).join(SEPARATORS)}(?!\\d)`, 'g'),
  };
}

function numberPattern(digits: readonly string[]): RegExp {
  return new RegExp(`(?<!\\d)${digits.join(SEPARATORS)}(?!\\d)`, 'g');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
