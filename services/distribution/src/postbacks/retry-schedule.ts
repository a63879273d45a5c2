/** The first retry's wait; each further one doubles, up to MAX_RETRY_DELAY_MS. */
export const FIRST_RETRY_DELAY_MS = 1_000;
export const MAX_RETRY_DELAY_MS = 30 * 60_000;

/**
 * When an event whose try number `attempts` failed at `now` is tried next, or undefined when that would be
 * more than `giveUpAfterMs` after its creation: exponential backoff with up to a fifth of jitter, so that
 * the events of a receiver that was down do not all come back at once.
 */
export function nextAttemptAt(
  createdAt: number,
  attempts: number,
  now: number,
  giveUpAfterMs: number,
  random = Math.random,
): number | undefined {
  const base = Math.min(FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  const next = now + Math.round(base * (1 + random() / 5));
  return next > createdAt + giveUpAfterMs ? undefined : next;
}
