import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

/** What @fastify/rate-limit expects of a store's count: it refuses once `current > max`. */
export interface StoreCount {
  current: number;
  /** Milliseconds; the plugin reports `ceil(ttl / 1000)` as the seconds until the limit resets. */
  ttl: number;
}

/**
 * A decision as the plugin reads a count: `remaining = max - current` and, on a refusal, `ttl` for
 * Retry-After. `ttl` is the time until a slot frees (0 while requests are left), as in the headers.
 */
export function storeCount(decision: RateLimitDecision): StoreCount {
  return {
    current: decision.allowed ? decision.limit - decision.remaining : decision.limit + 1,
    ttl: decision.resetSeconds * 1000,
  };
}

/**
 * The options the plugin hands a store: its own at registration, merged with a route's for `child` (which
 * its type definitions call RouteOptions).
 */
type StoreOptions = object & { timeWindow?: unknown };

/**
 * @fastify/rate-limit's store over the gateway's limiter. The plugin's own stores count fixed windows (a
 * key's window starts at its first request and resets whole `timeWindow` later, so 60 at the end of one
 * window and 60 at the start of the next all pass); this one answers from the limiter's exact rolling
 * window, in Redis when configured and in memory when Redis fails (the limiter never fails a request, so
 * the plugin's `skipOnError`, which lets every request through, is not needed).
 */
export function rollingWindowStore(limiter: RateLimiter): FastifyRateLimitStoreCtor {
  const windowMs = limiter.windowSeconds * 1000;

  /** A route cannot choose its own window: the limiter counts every bucket in one. */
  function assertWindow(options: StoreOptions): void {
    if (options.timeWindow !== windowMs) {
      throw new RangeError(`the rate-limit window is ${windowMs} ms; timeWindow ${String(options.timeWindow)} differs`);
    }
  }

  return class RollingWindowStore implements FastifyRateLimitStore {
    constructor(options: StoreOptions) {
      assertWindow(options);
    }

    incr(key: string, callback: (error: Error | null, count?: StoreCount) => void, _timeWindow: number, max: number) {
      limiter.consume(key, max).then(
        (decision) => callback(null, storeCount(decision)),
        (error: Error) => callback(error),
      );
    }

    /** Buckets are named by the key generator, so every route shares the one limiter. */
    child(options: StoreOptions): FastifyRateLimitStore {
      return new RollingWindowStore(options);
    }
  };
}
