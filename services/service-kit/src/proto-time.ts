import type { Duration } from '@leadflow/proto/google/protobuf/duration';

/** Milliseconds as a google.protobuf.Duration (sub-millisecond precision kept in nanos). */
export function durationOfMs(ms: number): Duration {
  const seconds = Math.trunc(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1_000_000) };
}

/** A google.protobuf.Duration in milliseconds; 0 when unset. */
export function msOfDuration(duration: Duration | undefined): number {
  return duration ? duration.seconds * 1000 + duration.nanos / 1_000_000 : 0;
}

/** Epoch milliseconds as a Timestamp (ts-proto's Date); undefined for null, the "unset" of storage. */
export function timestampOfMs(ms: number | null | undefined): Date | undefined {
  return ms === null || ms === undefined ? undefined : new Date(ms);
}
