import { randomBytes } from 'node:crypto';
import type { KeyRing } from '@leadflow/distribution/src/security/key-ring';
import { KeyedHasher } from '@leadflow/distribution/src/security/keyed-hash';
import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';

/** A fresh ring of random keys, for tests that open a database without a service. */
export function testKeyRing(): KeyRing {
  return {
    cipher: new PiiCipher(`k1:${randomBytes(32).toString('base64')}`),
    hasher: new KeyedHasher(randomBytes(32).toString('base64')),
  };
}
