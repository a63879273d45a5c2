import { invalidField } from './errors.js';

/** The last millisecond a google.protobuf.Timestamp may name. */
const LAST_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A time of an admin request in epoch ms; undefined when unset. Before 1970, or past the Timestamp range
 * (a time past what a Date holds arrives as an invalid Date, NaN), it is INVALID_ARGUMENT naming `field`,
 * with the range in the message and `reason` in ErrorInfo.
 */
export function requestTimeMs(field: string, time: Date | undefined, reason: string): number | undefined {
  if (time === undefined) return undefined;
  const ms = time.getTime();
  if (!(ms >= 0 && ms <= LAST_TIMESTAMP_MS))
    throw invalidField(field, 'must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z', { reason });
  return ms;
}
