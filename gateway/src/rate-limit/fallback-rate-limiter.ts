import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';
import { assertValidLimit } from './rolling-window.js';

/** The part of a pino logger this module uses. */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A limiter whose consume may reject, such as RedisRateLimiter. */
export type FallibleRateLimiter = Pick<RateLimiter, 'consume' | 'close'>;

export interface FallbackRateLimiterOptions {
  shared: FallibleRateLimiter;
  local: RateLimiter;
  logger: RateLimitLogger;
  /** Called once for every request answered by the local limiter; feed a metric with it. */
  onFallback?: () => void;
  /** While on the local limiter, how often one request tries the shared limiter again. */
  retryIntervalMs?: number;
  /** At most one warning per this interval, however often Redis fails or flaps. */
  warnIntervalMs?: number;
  now?: () => number;
}

/**
 * Uses the shared limiter and answers from the local one whenever a shared call fails, so a
 * Redis outage costs each gateway its shared count, never a 500. While degraded, a single
 * request per retry interval probes the shared limiter (the rest skip it, so a hanging Redis
 * does not add its timeout to every request); the first success switches back. Ours because
 * @fastify/rate-limit has no fallback: on a store error it answers 500, or with `skipOnError`
 * lets every request through unlimited.
 *
 * Log lines carry the error message only: ioredis errors hold the command's arguments, and
 * the key is derived from the bucket, which may be derived from a publisher's key.
 */
export class FallbackRateLimiter implements RateLimiter {
  readonly windowSeconds: number;
  private readonly shared: FallibleRateLimiter;
  private readonly local: RateLimiter;
  private readonly logger: RateLimitLogger;
  private readonly onFallback: () => void;
  private readonly retryIntervalMs: number;
  private readonly warnIntervalMs: number;
  private readonly now: () => number;
  private degraded = false;
  private nextRetryAt = 0;
  private nextWarnAt = Number.NEGATIVE_INFINITY;
  /** Whether the current outage was logged, so its end is logged too. */
  private warned = false;
  private localAnswersSinceLog = 0;

  constructor(options: FallbackRateLimiterOptions) {
    this.shared = options.shared;
    this.local = options.local;
    this.windowSeconds = options.local.windowSeconds;
    this.logger = options.logger;
    this.onFallback = options.onFallback ?? (() => {});
    this.retryIntervalMs = options.retryIntervalMs ?? 1000;
    this.warnIntervalMs = options.warnIntervalMs ?? 60_000;
    this.now = options.now ?? (() => performance.now());
  }

  async consume(bucket: string, limit: number): Promise<RateLimitDecision> {
    // Checked here so that a bad limit is not taken for a Redis failure.
    assertValidLimit(limit);
    if (this.shouldTryShared()) {
      try {
        const decision = await this.shared.consume(bucket, limit);
        this.recovered();
        return decision;
      } catch (error) {
        this.failed(error);
      }
    }
    this.localAnswersSinceLog += 1;
    this.onFallback();
    return this.local.consume(bucket, limit);
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.local.close()]);
  }

  private shouldTryShared(): boolean {
    if (!this.degraded) return true;
    const now = this.now();
    if (now < this.nextRetryAt) return false;
    this.nextRetryAt = now + this.retryIntervalMs;
    return true;
  }

  private failed(error: unknown): void {
    const now = this.now();
    if (!this.degraded) {
      this.degraded = true;
      this.nextRetryAt = now + this.retryIntervalMs;
    }
    // Throttled, so a flapping Redis cannot turn every request into a log line.
    if (now < this.nextWarnAt) return;
    this.logger.warn(
      { reason: error instanceof Error ? error.message : String(error), localAnswers: this.localAnswersSinceLog },
      'shared rate limiter failed; counting requests in this process until it answers again',
    );
    this.nextWarnAt = now + this.warnIntervalMs;
    this.localAnswersSinceLog = 0;
    this.warned = true;
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    if (!this.warned) return;
    this.logger.info(
      { localAnswers: this.localAnswersSinceLog },
      'shared rate limiter answers again; back to shared counts',
    );
    this.localAnswersSinceLog = 0;
    this.warned = false;
  }
}
