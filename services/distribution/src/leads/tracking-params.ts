import { MAX_TRACKING_PARAMS_LENGTH } from '@leadflow/core/lead-field-rules';
import { disallowedCharactersProblem, hasMoreCharactersThan } from './text.js';

const MAX_PAIRS = 50;
const PAIR_KEY = /^tPar\[([A-Za-z0-9_]{1,64})\]$/;
const PAIR_SHAPE = 'must be tPar[name]=value pairs joined by &, each name 1 to 64 letters, digits or _';

export type TrackingParams = { ok: true; params: Record<string, string> } | { ok: false; message: string };

/**
 * Parses tPar: `tPar[<name>]=<value>` pairs joined by "&", the way a query string carries them. Keys and
 * values are URL-decoded with "+" as a space (form encoding, what PHP's http_build_query sends), so
 * `tPar%5Bsub%5D=a+b` is the pair sub = "a b". Empty segments ("a&&b", a trailing "&") are skipped; a
 * repeated name is an error rather than a silent pick of one value.
 */
export function parseTrackingParams(text: string): TrackingParams {
  if (hasMoreCharactersThan(text, MAX_TRACKING_PARAMS_LENGTH))
    return failure(`must be at most ${MAX_TRACKING_PARAMS_LENGTH} characters`);
  // A Map, then Object.fromEntries: a name like __proto__ becomes an own property, not a prototype.
  const pairs = new Map<string, string>();
  for (const segment of text.split('&')) {
    if (segment === '') continue;
    const equals = segment.indexOf('=');
    if (equals === -1) return failure(PAIR_SHAPE);
    const key = formDecode(segment.slice(0, equals));
    const value = formDecode(segment.slice(equals + 1));
    if (key === undefined || value === undefined) return failure('has a malformed URL encoding');
    const name = PAIR_KEY.exec(key)?.[1];
    if (name === undefined) return failure(PAIR_SHAPE);
    const problem = disallowedCharactersProblem(value);
    if (problem) return failure(problem);
    if (pairs.has(name)) return failure('must not repeat a parameter name');
    if (pairs.size === MAX_PAIRS) return failure(`must have at most ${MAX_PAIRS} pairs`);
    pairs.set(name, value);
  }
  return { ok: true, params: Object.fromEntries(pairs) };
}

function formDecode(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function failure(message: string): TrackingParams {
  return { ok: false, message };
}
