import type { RateLimitDecision } from './rate-limiter.js';

export const DEFAULT_WINDOW_SECONDS = 60;

/** Whole seconds only: the RateLimit-Policy header's `w` cannot express fractions. */
export function windowMilliseconds(windowSeconds: number): number {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new RangeError(`rate-limit window must be a positive whole number of seconds, got ${windowSeconds}`);
  }
  return windowSeconds * 1000;
}

export function assertValidLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
  }
}

export interface WindowState {
  allowed: boolean;
  /** Requests counted in the window, including this one when allowed. */
  counted: number;
  limit: number;
  /**
   * Milliseconds until the counted request at position `counted - limit` (oldest first) leaves
   * the window, i.e. until there is room again; only read when the window is full.
   */
  msUntilRoom: number;
  windowSeconds: number;
}

/** One place for the arithmetic, so the local and the Redis limiter answer alike. */
export function decide(state: WindowState): RateLimitDecision {
  const remaining = Math.max(0, state.limit - state.counted);
  return {
    allowed: state.allowed,
    limit: state.limit,
    remaining,
    // Whole milliseconds first: sums of fractional clock readings can land a hair above a whole second.
    resetSeconds: remaining > 0 ? 0 : Math.max(1, Math.ceil(Math.round(state.msUntilRoom) / 1000)),
    windowSeconds: state.windowSeconds,
  };
}
