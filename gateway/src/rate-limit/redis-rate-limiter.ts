import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimitDecision } from './rate-limiter.js';
import { firstConnectionSettled, REDIS_COMMAND_TIMEOUT_MS } from './redis-client.js';
import { assertValidLimit, DEFAULT_WINDOW_SECONDS, decide, windowMilliseconds } from './rolling-window.js';

export const DEFAULT_KEY_PREFIX = 'leadflow:rl:';

const COMMAND = 'leadflowRollingWindow';

/**
 * KEYS[1] sorted set of the bucket's counted requests (score = Redis server time in ms);
 * ARGV: limit, window in ms, a member unique to this call.
 * Returns {allowed 0|1, counted, ms until room (0 when not full)}.
 * The server's clock, not the gateway's, so replicas with skewed clocks share one timeline.
 */
const ROLLING_WINDOW_LUA = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local counted = redis.call('ZCARD', KEYS[1])
local allowed = 0
if counted < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  counted = counted + 1
  allowed = 1
end
local untilRoom = 0
if counted >= limit then
  local entry = redis.call('ZRANGE', KEYS[1], counted - limit, counted - limit, 'WITHSCORES')
  untilRoom = tonumber(entry[2]) + window - now
end
return {allowed, counted, untilRoom}
`;

type RollingWindowCommand = (
  key: string,
  limit: number,
  windowMs: number,
  member: string,
) => Promise<[allowed: number, counted: number, msUntilRoom: number]>;

export interface RedisRateLimiterOptions {
  /** Owned by the limiter from now on: close() quits it. Use createRedisClient for fail-fast settings. */
  redis: Redis;
  windowSeconds?: number;
  keyPrefix?: string;
}

/**
 * The same rolling window as LocalRateLimiter, shared by every gateway through one Redis,
 * in one atomic round trip. Unlike the RateLimiter contract, consume rejects when Redis
 * fails: use it through FallbackRateLimiter.
 */
export class RedisRateLimiter {
  private readonly redis: Redis;
  private readonly run: RollingWindowCommand;
  private readonly connecting: Promise<void>;
  private readonly windowSeconds: number;
  private readonly windowMs: number;
  private readonly keyPrefix: string;
  private readonly memberPrefix = `${randomUUID()}:`;
  private sequence = 0;

  constructor(options: RedisRateLimiterOptions) {
    this.redis = options.redis;
    this.windowSeconds = options.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
    this.windowMs = windowMilliseconds(this.windowSeconds);
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    // defineCommand sends EVALSHA and reloads the script on NOSCRIPT (e.g. after a Redis restart).
    this.redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: ROLLING_WINDOW_LUA });
    const commands = this.redis as unknown as Record<typeof COMMAND, RollingWindowCommand>;
    this.run = commands[COMMAND].bind(this.redis);
    this.connecting = firstConnectionSettled(this.redis, REDIS_COMMAND_TIMEOUT_MS);
  }

  async consume(bucket: string, limit: number): Promise<RateLimitDecision> {
    assertValidLimit(limit);
    await this.connecting;
    this.sequence += 1;
    const [allowed, counted, msUntilRoom] = await this.run(
      this.keyPrefix + bucket,
      limit,
      this.windowMs,
      this.memberPrefix + this.sequence,
    );
    return decide({ allowed: allowed === 1, counted, limit, msUntilRoom, windowSeconds: this.windowSeconds });
  }

  async close(): Promise<void> {
    // QUIT is refused while disconnected (no offline queue); then just drop the socket.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
