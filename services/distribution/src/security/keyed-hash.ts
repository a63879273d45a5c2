import { createHmac } from 'node:crypto';
import { ConfigError } from '@leadflow/service-kit/config';
import { keyWeakness } from '@leadflow/service-kit/secret-strength';

/**
 * HMAC-SHA256 for values that must be compared but never recovered (SSN, e-mail,
 * phone for duplicate checks; lead fingerprints). A plain hash of a 9-digit SSN
 * falls to brute force in seconds; a keyed one does not without the key.
 */
export class KeyedHasher {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, 'base64');
    if (this.key.length < 32) throw new ConfigError('LEADFLOW_HMAC_KEY must be base64 of at least 32 bytes');
    const weakness = keyWeakness(this.key);
    if (weakness) throw new ConfigError(`LEADFLOW_HMAC_KEY is refused: ${weakness}`);
  }

  /** A fingerprint of the key that tells whether another hasher holds the same one, and reveals nothing about it. */
  checkValue(): string {
    return this.hash('key-check', 'leadflow');
  }

  hash(purpose: string, value: string): string {
    return createHmac('sha256', this.key).update(purpose).update('\0').update(value).digest('hex');
  }
}
