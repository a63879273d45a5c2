import { PII_RETENTION_DAYS } from '@leadflow/service-kit/config';
import { type Db, discardOverwrittenPages } from '../db/database.js';
import { invalidField } from '../errors.js';
import type { PiiCipher } from './pii-cipher.js';
import { purgeSensitiveFields } from './pii-purge.js';
import { reencryptLeads } from './pii-reencrypt.js';
import { reencryptPostbackSecrets } from './postback-secrets-reencrypt.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_REENCRYPT_BATCH = 500;
/** Leads per re-encryption transaction at most: bounds the locks one transaction holds. */
export const MAX_REENCRYPT_BATCH = 10_000;

/**
 * The sensitive fields' life after intake: purged after the retention period,
 * re-encrypted when the PII key rotates.
 *
 * Key rotation, production (keys in LEADFLOW_PII_KEYS):
 *   1. put a new key first in LEADFLOW_PII_KEYS on every distribution instance, keeping the old ones after it;
 *   2. restart every instance (from then on new leads are written under the new key);
 *   3. run `leadflow pii reencrypt` until it reports 0 (a run stopped halfway resumes where it stopped);
 *   4. drop the old keys from LEADFLOW_PII_KEYS and restart again.
 * Key rotation, embedded default (keys in the data directory's secrets.json):
 *   `leadflow pii rotate-key`, restart the service, `leadflow pii reencrypt`.
 */
export class PiiLifecycle {
  constructor(
    private readonly db: Db,
    private readonly cipher: PiiCipher,
  ) {}

  /** Purges the sensitive fields of leads created more than `olderThanDays` days ago; returns how many this call purged. */
  async purge(olderThanDays: number, signal?: AbortSignal): Promise<number> {
    const { min, max } = PII_RETENTION_DAYS;
    if (!Number.isInteger(olderThanDays) || olderThanDays < min || olderThanDays > max) {
      throw invalidField('older_than_days', `must be a whole number from ${min} to ${max}`);
    }
    const now = Date.now();
    const purged = await purgeSensitiveFields(this.db, { createdBefore: now - olderThanDays * DAY_MS, now, signal });
    if (purged > 0) await discardOverwrittenPages(this.db);
    return purged;
  }

  /**
   * Re-encrypts every lead not under the active key, and encrypts what an older release left in plain
   * text, `batchSize` per transaction (0 = default); then the publishers' postback signing secrets, which
   * count in `reencrypted` too.
   */
  async reencrypt(batchSize: number): Promise<{ reencrypted: number; activeKeyId: string }> {
    if (!Number.isInteger(batchSize) || batchSize < 0 || batchSize > MAX_REENCRYPT_BATCH) {
      throw invalidField('batch_size', `must be a whole number from 1 to ${MAX_REENCRYPT_BATCH}, or 0 for the default`);
    }
    const leads = await reencryptLeads(this.db, this.cipher, batchSize || DEFAULT_REENCRYPT_BATCH);
    if (leads > 0) await discardOverwrittenPages(this.db);
    const reencrypted = leads + (await reencryptPostbackSecrets(this.db, this.cipher));
    return { reencrypted, activeKeyId: this.cipher.activeKeyId };
  }
}
