const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/;

// 13 whole digits keep the count of cents below 2^53, where every integer is exact.
const MAX_EXACT_WHOLE_DIGITS = 13;

/**
 * Integer cents of a plain decimal amount with at most two decimals ("0.1" -> 10, "1000.00" -> 100000),
 * built from the digits, never through floating point. undefined when the text is not such an amount
 * (signs, exponents, separators); Infinity when it is too large to count exactly, above every limit.
 */
export function parseAmountCents(text: string): number | undefined {
  const match = AMOUNT.exec(text);
  if (!match) return undefined;
  const whole = match[1].replace(/^0+/, '');
  if (whole.length > MAX_EXACT_WHOLE_DIGITS) return Number.POSITIVE_INFINITY;
  return Number(whole + (match[2] ?? '').padEnd(2, '0'));
}

/** 1250 -> "12.50". */
export function formatCents(cents: number): string {
  const digits = String(cents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
