import { Redis } from 'ioredis';

/** How long a rate-limit call may wait on Redis before the gateway answers from its local count. */
export const REDIS_COMMAND_TIMEOUT_MS = 200;

/**
 * A client that fails fast instead of waiting: a request must never queue behind a dead or slow
 * Redis, since FallbackRateLimiter answers from memory the moment a call fails.
 */
export function createRedisClient(url: string): Redis {
  const redis = new Redis(url, {
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A call already answered locally must not be replayed into Redis after a reconnect.
    autoResendUnfulfilledCommands: false,
    // Keep trying quickly, so the shared count is back within about a second of Redis.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // Failures reach FallbackRateLimiter as rejected calls, which it logs at a bounded rate;
  // without a listener ioredis would print every reconnect attempt's error.
  redis.on('error', () => {});
  return redis;
}

/**
 * Settles once the client is ready, its first attempt fails, or `maxWaitMs` after this call,
 * whichever comes first; never rejects. Lets calls made while a fresh client is still
 * connecting wait briefly for it instead of failing over to the local count.
 */
export function firstConnectionSettled(redis: Redis, maxWaitMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const settle = (): void => {
      clearTimeout(timer);
      redis.off('ready', settle);
      redis.off('error', settle);
      resolve();
    };
    const timer = setTimeout(settle, maxWaitMs);
    timer.unref();
    redis.once('ready', settle);
    redis.once('error', settle);
  });
}
