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

/** What `--json` prints: `value` (messages' toJSON and plain objects) with every Duration as the proto JSON mapping writes it. */
export function jsonOutput(value: unknown): string {
  return `${JSON.stringify(withDurationStrings(value), null, 2)}\n`;
}
