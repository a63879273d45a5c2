import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';
import { assertValidLimit, DEFAULT_WINDOW_SECONDS, decide, windowMilliseconds } from './rolling-window.js';
import { TimestampQueue } from './timestamp-queue.js';

/** Enough for every publisher and every address failing at once in a busy minute; a few MB at most. */
export const DEFAULT_MAX_BUCKETS = 100_000;

export interface LocalRateLimiterOptions {
  windowSeconds?: number;
  /**
   * Buckets held at most. Past it, the bucket that counted least recently is forgotten (its count starts
   * again), so a flood of new buckets (addresses, publishers) cannot grow the process without bound.
   */
  maxBuckets?: number;
  /** Milliseconds on a clock that never goes back; tests pass a fake one. */
  now?: () => number;
}

/** An exact rolling window per bucket, in this process's bounded memory. */
export class LocalRateLimiter implements RateLimiter {
  readonly windowSeconds: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxBuckets: number;
  /**
   * Kept in the order of each bucket's newest timestamp (a bucket is re-inserted whenever it
   * counts a request), so idle buckets sit at the front and eviction stops at the first live one.
   */
  private readonly buckets = new Map<string, TimestampQueue>();

  constructor(options: LocalRateLimiterOptions = {}) {
    this.windowSeconds = options.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
    this.windowMs = windowMilliseconds(this.windowSeconds);
    this.now = options.now ?? (() => performance.now());
    this.maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
  }

  /** Buckets held in memory; idle ones are evicted as requests arrive. */
  get bucketCount(): number {
    return this.buckets.size;
  }

  async consume(bucket: string, limit: number): Promise<RateLimitDecision> {
    assertValidLimit(limit);
    const now = this.now();
    const cutoff = now - this.windowMs;
    this.evictIdle(cutoff);

    const timestamps = this.buckets.get(bucket) ?? new TimestampQueue();
    timestamps.dropThrough(cutoff);
    const allowed = timestamps.size < limit;
    if (allowed) {
      timestamps.push(now);
      this.buckets.delete(bucket);
      this.evictOldestBeyond(this.maxBuckets - 1);
      this.buckets.set(bucket, timestamps);
    }
    const counted = timestamps.size;
    return decide({
      allowed,
      counted,
      limit,
      msUntilRoom: counted >= limit ? timestamps.at(counted - limit) + this.windowMs - now : 0,
      windowSeconds: this.windowSeconds,
    });
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }

  private evictOldestBeyond(size: number): void {
    for (const bucket of this.buckets.keys()) {
      if (this.buckets.size <= size) return;
      this.buckets.delete(bucket);
    }
  }

  private evictIdle(cutoff: number): void {
    for (const [bucket, timestamps] of this.buckets) {
      if (timestamps.newest() > cutoff) return;
      this.buckets.delete(bucket);
    }
  }
}
