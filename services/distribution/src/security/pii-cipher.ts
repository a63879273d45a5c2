import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { ConfigError } from '@leadflow/service-kit/config';
import { keyWeakness } from '@leadflow/service-kit/secret-strength';
import { fillRandom } from '../random-pool.js';

const FORMAT = 'v1';
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * AES-256-GCM for the sensitive lead fields. Each ciphertext names the key that
 * made it (`v1.<kid>.<iv>.<tag>.<data>`), so keys can rotate: the first key of
 * the ring encrypts, every key of the ring decrypts.
 */
export class PiiCipher {
  private readonly keys: Map<string, Buffer>;
  readonly activeKeyId: string;

  constructor(keyRing: string) {
    this.keys = new Map();
    for (const entry of keyRing
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const separator = entry.indexOf(':');
      const kid = entry.slice(0, separator);
      const key = Buffer.from(entry.slice(separator + 1), 'base64');
      if (separator < 1 || !KEY_ID_PATTERN.test(kid) || key.length !== 32) {
        throw new ConfigError('LEADFLOW_PII_KEYS must be comma-separated kid:base64 pairs of 32-byte keys');
      }
      if (this.keys.has(kid)) throw new ConfigError(`LEADFLOW_PII_KEYS names key id ${kid} twice`);
      const weakness = keyWeakness(key);
      if (weakness) throw new ConfigError(`LEADFLOW_PII_KEYS key ${kid} is refused: ${weakness}`);
      this.keys.set(kid, key);
    }
    const first = this.keys.keys().next();
    if (first.done) throw new ConfigError('LEADFLOW_PII_KEYS holds no key');
    this.activeKeyId = first.value;
  }

  encrypt(plaintext: string): string {
    const iv = fillRandom(Buffer.allocUnsafe(12));
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKeyId)!, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      FORMAT,
      this.activeKeyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.');
  }

  decrypt(ciphertext: string): string {
    const [format, kid, iv, tag, data] = ciphertext.split('.');
    const key = kid === undefined ? undefined : this.keys.get(kid);
    if (format !== FORMAT || !key || !iv || !tag || data === undefined) {
      throw new Error(`cannot decrypt: unknown format or key id`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Every key id of the ring, the active one first. */
  keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /**
   * A fingerprint of one key that tells whether a ring holds the same key
   * under that id, and reveals nothing about the key (an HMAC under it).
   */
  checkValue(kid: string): string {
    const key = this.keys.get(kid);
    if (!key) throw new Error(`no key ${kid} in the ring`);
    return createHmac('sha256', key).update('leadflow pii key check').digest('hex');
  }

  /** The key id a stored ciphertext was made with. */
  static keyIdOf(ciphertext: string): string | undefined {
    return ciphertext.split('.')[1];
  }
}
