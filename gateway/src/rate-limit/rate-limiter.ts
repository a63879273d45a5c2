/** The verdict on one request, with what the rate-limit headers need. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current rolling window after this one. */
  remaining: number;
  /**
   * Seconds until the window has room for a request again: 0 while remaining > 0, otherwise
   * until the counted request whose departure frees a slot leaves the window (rounded up, at least 1).
   */
  resetSeconds: number;
  windowSeconds: number;
}

/**
 * Counts requests per bucket (a publisher or an unknown key's hash) in a rolling window:
 * a request is allowed when fewer than `limit` allowed requests happened in the last
 * `windowSeconds`; denied requests are not counted.
 *
 * What the gateway gets from createRateLimiter never rejects on a backend failure: a failing
 * Redis falls back to a local count. consume rejects only on a limit that is not a positive
 * integer, which is a programming error.
 */
export interface RateLimiter {
  /** The rolling window every bucket is counted in. */
  readonly windowSeconds: number;
  consume(bucket: string, limit: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}
