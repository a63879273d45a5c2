import { randomBytes } from 'node:crypto';
import type { KeyRing } from '../../services/distribution/src/security/key-ring.js';
import { KeyedHasher } from '../../services/distribution/src/security/keyed-hash.js';
import { PiiCipher } from '../../services/distribution/src/security/pii-cipher.js';

/** A fresh ring of random keys, for tests that open a database without a service. */
export function testKeyRing(): KeyRing {
  return {
    cipher: new PiiCipher(`k1:${randomBytes(32).toString('base64')}`),
    hasher: new KeyedHasher(randomBytes(32).toString('base64')),
  };
}
