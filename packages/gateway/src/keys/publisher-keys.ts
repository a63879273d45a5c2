import { createHash } from 'node:crypto';
import type { ResolvePublisherKeyResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import type { Context } from '@opentelemetry/api';

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
  maxEntries?: number;
}

/**
 * Key -> live publisher (or null for an unknown or revoked key), cached
 * in-process by the key's hash, answers and misses alike. A lookup in flight is
 * shared by every request for the same key; a failed lookup is not cached.
 */
export class PublisherKeys {
  private readonly cache: TtlCache<string, Promise<Publisher | null>>;

  constructor(
    private readonly resolve: (webmasterKey: string, parent: Context) => Promise<ResolvePublisherKeyResponse>,
    { ttlMs = 5000, maxEntries = 100_000 }: PublisherKeysOptions = {},
  ) {
    this.cache = new TtlCache(ttlMs, maxEntries);
  }

  /** The answer already cached or in flight for the key, without asking the distribution service. */
  known(keyHash: string): Promise<Publisher | null> | undefined {
    return this.cache.get(keyHash);
  }

  /** Rejects when the distribution service cannot answer. */
  lookup(webmasterKey: string, keyHash: string, parent: Context): Promise<Publisher | null> {
    const cached = this.cache.get(keyHash);
    if (cached) return cached;
    const pending = this.resolve(webmasterKey, parent).then((answer) =>
      answer.valid ? { id: answer.publisherId, rateLimitPerMinute: answer.rateLimitPerMinute } : null,
    );
    this.cache.set(keyHash, pending);
    pending.catch(() => {
      if (this.cache.get(keyHash) === pending) this.cache.delete(keyHash);
    });
    return pending;
  }
}
