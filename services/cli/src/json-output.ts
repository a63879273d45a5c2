import type { Duration } from '@leadflow/proto/google/protobuf/duration';

/**
 * A Duration as the proto JSON mapping writes it: seconds with 0, 3, 6 or 9 fractional digits, then `s`
 * (`"1.910s"`, `"0.000450s"`, `"2s"`, `"-0.250s"`).
 */
export function durationJson({ seconds, nanos }: Duration): string {
  const negative = seconds < 0 || nanos < 0;
  const whole = Math.abs(seconds);
  const fraction = Math.abs(nanos);
  if (fraction === 0) return `${negative ? '-' : ''}${whole}s`;
  const digits = String(fraction).padStart(9, '0');
  const kept = digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits;
  return `${negative ? '-' : ''}${whole}.${kept}s`;
}

/** ts-proto's toJSON leaves a Duration as `{seconds, nanos}`; no other message of the API has just those fields. */
function isDuration(value: object): value is Duration {
  const keys = Object.keys(value);
  return (
    keys.length === 2 &&
    typeof (value as Duration).seconds === 'number' &&
    typeof (value as Duration).nanos === 'number'
  );
}

function withDurationStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDurationStrings);
  if (value === null || typeof value !== 'object') return value;
  if (isDuration(value)) return durationJson(value);
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, withDurationStrings(entry)]));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/** `json` (the toJSON of `message`) with the lists and maps `message` holds empty put back, at every depth. */
function withEmptyCollections(message: unknown, json: unknown): unknown {
  if (Array.isArray(message) && Array.isArray(json))
    return json.map((entry, index) => withEmptyCollections(message[index], entry));
  if (!isPlainObject(message) || !isPlainObject(json)) return json;
  const filled: Record<string, unknown> = { ...json };
  for (const [field, value] of Object.entries(message)) {
    if (field in filled) filled[field] = withEmptyCollections(value, filled[field]);
    else if (Array.isArray(value)) filled[field] = [];
    else if (isPlainObject(value) && Object.keys(value).length === 0) filled[field] = {};
  }
  return filled;
}

/**
 * A message as `--json` prints it: its toJSON, with the empty lists and maps ts-proto's toJSON leaves out
 * put back. Every field is then there, as scalars are at their zero value, and a script's
 * `jq '.leads[]'` works on an empty answer too.
 */
export function messageJson<T>(type: { toJSON(message: T): unknown }, message: T): unknown {
  return withEmptyCollections(message, type.toJSON(message));
}

/** What `--json` prints: `value` (messages' toJSON and plain objects) with every Duration as the proto JSON mapping writes it. */
export function jsonOutput(value: unknown): string {
  return `${JSON.stringify(withDurationStrings(value), null, 2)}\n`;
}
