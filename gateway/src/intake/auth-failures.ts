import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/index.js';
import { DEFAULT_WINDOW_SECONDS } from '../rate-limit/rolling-window.js';

export interface AuthFailuresOptions {
  /** The gateway's limiter: shared through Redis when configured, with its local fallback. */
  limiter: RateLimiter;
  /** Failed authentications allowed per client address in any rolling window. */
  limit: number;
  /** Addresses remembered as locked out; past it the oldest is forgotten first. */
  maxLockouts?: number;
  now?: () => number;
}

/**
 * Failed authentications per client address, in a rolling window like the per-key limit (and in the same
 * limiter, so gateways share the count through Redis). Once an address has used its allowance, this
 * gateway remembers the lockout until a slot frees: from then on its requests are refused before any key
 * look-up, so a flood of guessed keys costs the distribution service at most `limit` look-ups a window
 * per address (one more per other gateway that has not yet seen the lockout).
 */
export class AuthFailures {
  private readonly limiter: RateLimiter;
  readonly limit: number;
  readonly windowSeconds = DEFAULT_WINDOW_SECONDS;
  private readonly now: () => number;
  /** Address -> when its lockout ends (ms on `now`'s clock). A lockout never outlasts one window. */
  private readonly lockedUntil: TtlCache<string, number>;

  constructor(options: AuthFailuresOptions) {
    this.limiter = options.limiter;
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.lockedUntil = new TtlCache(DEFAULT_WINDOW_SECONDS * 1000, options.maxLockouts ?? 100_000);
  }

  /** Seconds until the address may fail again; 0 when it is not locked out. */
  lockedOutSeconds(address: string): number {
    const now = this.now();
    const until = this.lockedUntil.get(address, now);
    if (until === undefined || until <= now) return 0;
    return Math.max(1, Math.ceil((until - now) / 1000));
  }

  /** Counts one failed authentication of the address; `allowed` is false once it is over its allowance. */
  async record(address: string): Promise<RateLimitDecision> {
    const decision = await this.limiter.consume(`auth:${address}`, this.limit);
    if (decision.remaining === 0) {
      const now = this.now();
      this.lockedUntil.set(address, now + decision.resetSeconds * 1000, now);
    }
    return decision;
  }
}
