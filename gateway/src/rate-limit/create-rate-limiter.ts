import { FallbackRateLimiter, type RateLimitLogger } from './fallback-rate-limiter.js';
import { LocalRateLimiter } from './local-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';
import { createRedisClient } from './redis-client.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

export interface CreateRateLimiterOptions {
  /** REDIS_URL; unset = each gateway counts in its own memory. */
  redisUrl?: string | undefined;
  logger: RateLimitLogger;
  windowSeconds?: number;
  /** Called for every request answered locally because Redis is failing; feed a metric with it. */
  onFallback?: () => void;
}

/** The gateway's limiter: shared through Redis when a URL is given, with the local one as fallback. */
export function createRateLimiter(options: CreateRateLimiterOptions): RateLimiter {
  const local = new LocalRateLimiter({ windowSeconds: options.windowSeconds });
  if (!options.redisUrl) return local;
  const shared = new RedisRateLimiter({
    redis: createRedisClient(options.redisUrl),
    windowSeconds: options.windowSeconds,
  });
  return new FallbackRateLimiter({ shared, local, logger: options.logger, onFallback: options.onFallback });
}
