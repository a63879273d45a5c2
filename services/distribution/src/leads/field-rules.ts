import { isIP } from 'node:net';
import { formatCents, parseAmountCents } from '@leadflow/core/amounts';
import { ageInYears, parseCalendarDate } from '@leadflow/core/calendar-date';
import { INCOME_TYPES, type LeadFieldRuleKind, type LeadFieldRuleOf } from '@leadflow/core/lead-field-rules';
import { isUspsStateCode } from '@leadflow/core/us-states';
import { isValidAbaRoutingNumber } from './aba.js';
import { normalizeEmailAddress } from './email.js';
import { isNorthAmericanNumber, phoneDigits } from './phone.js';
import { isIssuableSsn, ssnDigits } from './ssn.js';
import { disallowedCharactersProblem, hasMoreCharactersThan } from './text.js';
import { parseTrackingParams } from './tracking-params.js';

/**
 * The outcome of one field's rule: the parsed value and the normalized text to store, or a message.
 * Messages are fixed per rule and never contain the submitted value.
 */
export type Checked<T> = { ok: true; value: T; normalized: string } | { ok: false; message: string };

/** Checks the trimmed, non-empty text of one field. */
export type FieldRule<T> = (text: string) => Checked<T>;

function accept(normalized: string): Checked<string> {
  return { ok: true, value: normalized, normalized };
}

function reject(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

export const ssn: FieldRule<string> = (text) => {
  const digits = ssnDigits(text);
  if (digits === undefined) return reject('must be 9 digits');
  return isIssuableSsn(digits) ? accept(digits) : reject('is not a valid Social Security number');
};

export const email: FieldRule<string> = (text) => {
  const address = normalizeEmailAddress(text);
  return address === undefined ? reject('must be a valid e-mail address') : accept(address);
};

const DATE_FORMAT_MESSAGE = 'must be a date in YYYY-MM-DD form';

export const calendarDate: FieldRule<string> = (text) =>
  parseCalendarDate(text) === undefined ? reject(DATE_FORMAT_MESSAGE) : accept(text);

const MIN_AGE_YEARS = 18;
const MAX_AGE_YEARS = 120;

/** A date of birth; its value is the applicant's age in whole years at `now`. */
export function birthDate(now: Date): FieldRule<number> {
  return (text) => {
    const birth = parseCalendarDate(text);
    if (birth === undefined) return reject(DATE_FORMAT_MESSAGE);
    const age = ageInYears(birth, now);
    if (age < MIN_AGE_YEARS || age > MAX_AGE_YEARS) {
      return reject(`applicant must be ${MIN_AGE_YEARS} to ${MAX_AGE_YEARS} years old`);
    }
    return { ok: true, value: age, normalized: text };
  };
}

/** A two-letter USPS code in either case, normalized to upper case. */
export const stateCode: FieldRule<string> = (text) => {
  // Letters first: toUpperCase maps some non-ASCII letters onto ASCII ("ı" -> "I").
  const code = /^[A-Za-z]{2}$/.test(text) ? text.toUpperCase() : '';
  return isUspsStateCode(code) ? accept(code) : reject('must be a US state code');
};

export const zip: FieldRule<string> = (text) =>
  /^\d{5}(?:-\d{4})?$/.test(text) ? accept(text) : reject('must be a 5-digit ZIP code or ZIP+4');

/** A North American number, normalized to its 10 digits. */
export const phone: FieldRule<string> = (text) => {
  const digits = phoneDigits(text);
  if (digits === undefined) return reject('must be a 10-digit phone number');
  return isNorthAmericanNumber(digits) ? accept(digits) : reject('must be a valid North American phone number');
};

/** IPv4 or IPv6; an IPv6 zone ("%eth0") means nothing for a remote user and is rejected. */
export const ipAddress: FieldRule<string> = (text) => {
  const version = text.includes('%') ? 0 : isIP(text);
  if (version === 0) return reject('must be an IPv4 or IPv6 address');
  return accept(version === 6 ? text.toLowerCase() : text);
};

/**
 * A decimal amount in dollars; its value is integer cents within [minCents, maxCents], its normalized text
 * has exactly two decimals.
 */
export function amount(minCents: number, maxCents: number): FieldRule<number> {
  const rangeMessage = `must be from ${formatCents(minCents)} to ${formatCents(maxCents)}`;
  return (text) => {
    const cents = parseAmountCents(text);
    if (cents === undefined) return reject('must be an amount such as 1000.00, with at most 2 decimals');
    if (cents < minCents || cents > maxCents) return reject(rangeMessage);
    return { ok: true, value: cents, normalized: formatCents(cents) };
  };
}

const INCOME_TYPE_NAMES: ReadonlySet<string> = new Set(INCOME_TYPES);

/** One of the three income types in either case, normalized to upper case. */
export const incomeType: FieldRule<string> = (text) => {
  const type = /^[A-Za-z_]+$/.test(text) ? text.toUpperCase() : '';
  return INCOME_TYPE_NAMES.has(type) ? accept(type) : reject('must be EMPLOYMENT, BENEFITS or SELF_EMPLOYED');
};

export const abaRoutingNumber: FieldRule<string> = (text) => {
  if (!/^\d{9}$/.test(text)) return reject('must be 9 digits');
  return isValidAbaRoutingNumber(text) ? accept(text) : reject('is not a valid ABA routing number');
};

export const bankAccountNumber: FieldRule<string> = (text) =>
  /^\d{4,17}$/.test(text) ? accept(text) : reject('must be 4 to 17 digits');

/** "1" marks a test lead; its value is whether the lead is a test. */
export const testFlag: FieldRule<boolean> = (text) =>
  text === '0' || text === '1' ? { ok: true, value: text === '1', normalized: text } : reject('must be 0 or 1');

export const clickid: FieldRule<string> = (text) =>
  /^[\x21-\x7E]{1,128}$/.test(text) ? accept(text) : reject('must be 1 to 128 printable ASCII characters, no spaces');

const MAX_MONTHS = 1200;

/** A duration in whole months, normalized without leading zeros. */
export const months: FieldRule<string> = (text) =>
  /^\d{1,4}$/.test(text) && Number(text) <= MAX_MONTHS
    ? accept(String(Number(text)))
    : reject(`must be a whole number from 0 to ${MAX_MONTHS}`);

/** Its value is the named pairs; the normalized text is the text as sent. */
export const trackingParams: FieldRule<Record<string, string>> = (text) => {
  const parsed = parseTrackingParams(text);
  return parsed.ok ? { ok: true, value: parsed.params, normalized: text } : reject(parsed.message);
};

/** Free text of at most maxLength characters (code points), without control or invisible formatting characters. */
export function freeText(maxLength: number): FieldRule<string> {
  const tooLong = `must be at most ${maxLength} characters`;
  return (text) => {
    if (hasMoreCharactersThan(text, maxLength)) return reject(tooLong);
    const problem = disallowedCharactersProblem(text);
    return problem ? reject(problem) : accept(text);
  };
}

/** What a rule of each kind yields beyond the normalized text; every other kind yields the text. */
interface RuleValues {
  amount: number;
  birthDate: number;
  testFlag: boolean;
  trackingParams: Record<string, string>;
}

export type RuleValue<K extends LeadFieldRuleKind> = K extends keyof RuleValues ? RuleValues[K] : string;

const RULES: { [K in LeadFieldRuleKind]: (rule: LeadFieldRuleOf<K>, now: Date) => FieldRule<RuleValue<K>> } = {
  amount: (rule) => amount(rule.minCents, rule.maxCents),
  freeText: (rule) => freeText(rule.maxLength),
  ssn: () => ssn,
  email: () => email,
  birthDate: (_rule, now) => birthDate(now),
  calendarDate: () => calendarDate,
  stateCode: () => stateCode,
  zip: () => zip,
  phone: () => phone,
  ipAddress: () => ipAddress,
  clickid: () => clickid,
  testFlag: () => testFlag,
  incomeType: () => incomeType,
  abaRoutingNumber: () => abaRoutingNumber,
  bankAccountNumber: () => bankAccountNumber,
  months: () => months,
  trackingParams: () => trackingParams,
};

/** The check of a catalogue rule; `now` is the moment a birth date's age is measured at. */
export function fieldRule<K extends LeadFieldRuleKind>(rule: LeadFieldRuleOf<K>, now: Date): FieldRule<RuleValue<K>> {
  // The table pairs each kind with its builder; TypeScript cannot follow K through the lookup.
  const build = RULES[rule.kind] as (rule: LeadFieldRuleOf<K>, now: Date) => FieldRule<RuleValue<K>>;
  return build(rule, now);
}
