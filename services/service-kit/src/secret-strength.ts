const MIN_TOKEN_LENGTH = 32;
/**
 * Estimated from the token's own character frequencies: `openssl rand -hex 16` (128 random bits) scores
 * about 125, and none of two million such tokens scored under 94; six characters repeated score under 90.
 */
const MIN_TOKEN_BITS = 90;
/** Random hex has about one neighbour in six in a run; "abcd" and "4321" have nearly all. */
const MAX_RUN_SHARE = 0.6;
const PLACEHOLDER = /replace[_-]?me|change[_-]?me|placeholder|example|dummy|password|your[_-]?token/i;

/**
 * Shannon entropy of the text's character distribution, times its length: a rough upper bound of its
 * randomness. Frequencies counted in 32 characters understate it (a random token's own counts are
 * uneven), by about (distinct characters - 1) / (2 ln 2) bits in all, which is added back (Miller-Madow).
 */
function estimatedBits(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bitsPerChar = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bitsPerChar -= p * Math.log2(p);
  }
  return bitsPerChar * text.length + (counts.size - 1) / (2 * Math.LN2);
}

/** Share of neighbouring characters that repeat or count up or down ("aaaa", "abcd", "4321"). */
function runShare(text: string): number {
  let runs = 0;
  for (let i = 1; i < text.length; i++) if (Math.abs(text.charCodeAt(i) - text.charCodeAt(i - 1)) <= 1) runs++;
  return runs / Math.max(1, text.length - 1);
}

/**
 * Why a bearer token is too weak to guard an API, or undefined when it is not:
 * a template's placeholder, too short, or too little randomness. The reason
 * never quotes the token.
 */
export function tokenWeakness(token: string): string | undefined {
  if (PLACEHOLDER.test(token)) return 'it is a placeholder';
  if (token.length < MIN_TOKEN_LENGTH) return `it has ${token.length} characters, fewer than ${MIN_TOKEN_LENGTH}`;
  if (estimatedBits(token) < MIN_TOKEN_BITS || runShare(token) > MAX_RUN_SHARE) return 'it is not random enough';
  return undefined;
}

/** The advice that goes with a refused token. */
export const STRONG_TOKEN_ADVICE = 'use a random one, e.g. `openssl rand -base64 32`';

/** Why raw key material is no key (all zeros, a repeated pattern), or undefined. */
export function keyWeakness(key: Buffer): string | undefined {
  return new Set(key).size < 16 ? 'its bytes are not random' : undefined;
}
