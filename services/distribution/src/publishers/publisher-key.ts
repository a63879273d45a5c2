import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PUBLISHER_KEY_PREFIX } from '@leadflow/core/publisher-key-format';

/** A new publisher key: the prefix and 256 random bits. */
export function generatePublisherKey(): string {
  return PUBLISHER_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Keys carry 256 random bits, so a fast hash is safe to store (no dictionary to
 * try); only the hash is kept.
 */
export function hashPublisherKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function publisherKeyHint(key: string): string {
  return key.slice(-4);
}

export function hashesMatch(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
