import { createHash } from 'node:crypto';
import type { ResolvePublisherKeyResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import { type Context, ROOT_CONTEXT } from '@opentelemetry/api';

export interface Publisher {
  id: string;
  rateLimitPerMinute: number;
}

/** How a key is named wherever it must be named: cache entries, rate-limit buckets. */
export function hashKey(webmasterKey: string): string {
  return createHash('sha256').update(webmasterKey).digest('hex');
}

export interface PublisherKeysOptions {
  /** Short, so that a revoked key stops working within seconds. */
  ttlMs?: number;
  /**
   * How long a live publisher's answer may still be used while a newer one is asked for: SubmitLead
   * checks the key again in the distribution service, so an older answer only sets the rate limit.
   */
  maxStaleMs?: number;
  maxEntries?: number;
}

interface CachedAnswer {
  answer: Promise<Publisher | null>;
  /** Date.now() when the answer was asked for. */
  askedAt: number;
  /** The publisher, once the answer came and the key was live. */
  live?: Publisher;
}

/**
 * Key -> live publisher (or null for an unknown or revoked key), cached in-process by the key's hash,
 * answers and misses alike. A lookup in flight is shared by every request for the same key; a failed
 * lookup is not cached. A live answer older than the TTL is still used, for up to maxStaleMs, while
 * the next one is asked for in the background: a publisher sending a lead every few seconds would
 * otherwise wait on that round trip for most of its leads. An unknown key's answer is never used past
 * the TTL, so that a key just created works at once.
 */
export class PublisherKeys {
  private readonly cache: TtlCache<string, CachedAnswer>;
  private readonly ttlMs: number;

  constructor(
    private readonly resolve: (webmasterKey: string, parent: Context) => Promise<ResolvePublisherKeyResponse>,
    { ttlMs = 5000, maxStaleMs = 60_000, maxEntries = 100_000 }: PublisherKeysOptions = {},
  ) {
    this.ttlMs = ttlMs;
    this.cache = new TtlCache(Math.max(ttlMs, maxStaleMs), maxEntries);
  }

  /** The answer already cached or in flight for the key, without asking the distribution service. */
  known(keyHash: string): Promise<Publisher | null> | undefined {
    const cached = this.cache.get(keyHash);
    return cached && (cached.live || this.isFresh(cached)) ? cached.answer : undefined;
  }

  /** Rejects when the distribution service cannot answer. */
  lookup(webmasterKey: string, keyHash: string, parent: Context): Promise<Publisher | null> {
    const cached = this.cache.get(keyHash);
    if (cached && this.isFresh(cached)) return cached.answer;
    if (cached?.live) {
      // Asked at most once a TTL: until the new answer comes, the old one counts as just asked for. The
      // request does not wait for it, so it is no part of the request's trace.
      cached.askedAt = Date.now();
      // A failed refresh changes nothing: the live answer stays in use (SubmitLead checks the key itself)
      // and the next request past the TTL asks again. A distribution service that cannot answer shows in
      // the gateway's readiness and in the SubmitLead calls themselves.
      this.ask(webmasterKey, keyHash, ROOT_CONTEXT).answer.catch(() => undefined);
      return cached.answer;
    }
    // Shared while in flight; a refresh instead leaves the answer in use where it is.
    const asked = this.ask(webmasterKey, keyHash, parent);
    this.cache.set(keyHash, asked);
    asked.answer.catch(() => {
      if (this.cache.get(keyHash) === asked) this.cache.delete(keyHash);
    });
    return asked.answer;
  }

  private isFresh(cached: CachedAnswer): boolean {
    return Date.now() - cached.askedAt < this.ttlMs;
  }

  /** Asks the distribution service; the answer replaces the cached one once it comes. */
  private ask(webmasterKey: string, keyHash: string, parent: Context): CachedAnswer {
    const asked: CachedAnswer = {
      askedAt: Date.now(),
      answer: this.resolve(webmasterKey, parent).then((answer) => {
        const publisher = answer.valid
          ? { id: answer.publisherId, rateLimitPerMinute: answer.rateLimitPerMinute }
          : null;
        if (publisher) asked.live = publisher;
        this.cache.set(keyHash, asked);
        return publisher;
      }),
    };
    return asked;
  }
}
