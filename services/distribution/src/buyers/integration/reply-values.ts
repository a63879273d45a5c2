/** Above this a price is taken for a mistake, not a bid: $10,000. */
export const MAX_PRICE_CENTS = 1_000_000;

export const MAX_TEXT_LENGTH = 500;

const MAX_URL_LENGTH = 2048;

// "12", "12.5", "12.50", "$12.50", "USD 12.50", "1,250.00"; no sign, no exponent.
const PRICE = /^(?:\$\s*|USD\s*)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$/i;

/**
 * Integer cents of a price as buyers write it, computed on the digits (never through floating point).
 * Fractions of a cent are cut off, so a buyer is never charged more than it bid. undefined when the
 * text is no price, or the price is above MAX_PRICE_CENTS.
 */
export function parsePriceCents(text: string): number | undefined {
  const match = PRICE.exec(text.trim());
  if (!match) return undefined;
  const whole = match[1].replaceAll(',', '');
  // Exact for every price up to the cap; a longer number is only ever compared, and is above it.
  const cents = Number(whole) * 100 + Number((match[2] ?? '').slice(0, 2).padEnd(2, '0'));
  return cents > MAX_PRICE_CENTS ? undefined : cents;
}

/**
 * A buyer's reason or reference made safe to store and show: control and format characters (line
 * breaks, bidi overrides) become spaces, runs of spaces one, at most MAX_TEXT_LENGTH characters.
 * undefined when nothing is left.
 */
export function cleanText(text: string): string | undefined {
  const cleaned = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  if (cleaned === '') return undefined;
  // No more UTF-16 units than the limit is no more characters either: most texts are not split up.
  if (cleaned.length <= MAX_TEXT_LENGTH) return cleaned;
  const characters = Array.from(cleaned);
  return characters.length > MAX_TEXT_LENGTH ? characters.slice(0, MAX_TEXT_LENGTH).join('').trimEnd() : cleaned;
}

/** An absolute http(s) URL without credentials, as normalized by the URL parser; else undefined. */
export function httpUrl(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length > MAX_URL_LENGTH || /[\s\p{Cc}]/u.test(trimmed) || !URL.canParse(trimmed)) return undefined;
  const url = new URL(trimmed);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href;
}
