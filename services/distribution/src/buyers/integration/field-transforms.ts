import { formatCents, parseAmountCents } from '@leadflow/core/amounts';
import { parseCalendarDate } from '@leadflow/core/calendar-date';
import { phoneDigits } from '../../leads/phone.js';
import type { Transform } from '../definition/buyer-definition.js';

/** A value as it goes into a buyer request. */
export type FieldValue = string | number | boolean;

const DATE_TOKEN = /YYYY|MM|DD/g;

/**
 * Applies the transforms in order. undefined when one of them cannot apply (a date transform on text
 * that is not YYYY-MM-DD, a phone that is not 10 digits, money that is not an amount) or when the
 * result is empty: the field is then left out of the request, exactly like an absent field.
 */
export function applyTransforms(value: FieldValue, transforms: readonly Transform[]): FieldValue | undefined {
  let current: FieldValue | undefined = value;
  for (const transform of transforms) {
    current = applyTransform(current, transform);
    if (current === undefined) return undefined;
  }
  return current === '' ? undefined : current;
}

function applyTransform(value: FieldValue, transform: Transform): FieldValue | undefined {
  const text = String(value);
  switch (transform) {
    case 'digits':
      return text.replace(/\D/g, '');
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'trim':
      return text.trim();
  }
  if ('date' in transform) return formatDate(text, transform.date);
  if ('phone' in transform) return formatPhone(text, transform.phone);
  if ('money' in transform) return formatMoney(text, transform.money);
  if (Object.hasOwn(transform.map, text)) return transform.map[text];
  // Without a default an unmapped value goes out unchanged.
  return transform.default ?? value;
}

function formatDate(text: string, pattern: string): string | undefined {
  const date = parseCalendarDate(text);
  if (!date) return undefined;
  const parts: Record<string, string> = {
    YYYY: String(date.year).padStart(4, '0'),
    MM: String(date.month).padStart(2, '0'),
    DD: String(date.day).padStart(2, '0'),
  };
  return pattern.replace(DATE_TOKEN, (token) => parts[token]);
}

function formatPhone(text: string, pattern: string): string | undefined {
  const digits = phoneDigits(text);
  if (!digits || pattern.split('X').length - 1 !== digits.length) return undefined;
  let next = 0;
  return pattern.replace(/X/g, () => digits[next++]);
}

/**
 * Amounts reach a buyer request in dollars (the lead's normalized "1500.00" or a derived 1500); they are
 * read into integer cents and written back from those, so no floating-point drift shows ("0.30", never
 * "0.30000000000000004").
 */
function formatMoney(text: string, style: 'number' | 'string'): FieldValue | undefined {
  const cents = parseAmountCents(text);
  if (cents === undefined || !Number.isFinite(cents)) return undefined;
  const dollars = formatCents(cents);
  return style === 'string' ? dollars : Number(dollars);
}
