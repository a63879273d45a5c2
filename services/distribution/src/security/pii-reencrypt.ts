import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../db/database.js';
import { ServiceError } from '../errors.js';
import { PiiCipher } from './pii-cipher.js';

interface StoredCiphertext {
  id: string;
  sensitive: string;
}

/** The same plaintext under the active key; the plaintext never leaves this function. */
function underActiveKey(cipher: PiiCipher, lead: StoredCiphertext): string {
  let plaintext: string;
  try {
    plaintext = cipher.decrypt(lead.sensitive);
  } catch {
    throw new ServiceError(
      'failed_precondition',
      `lead ${lead.id} cannot be decrypted (its key id is "${PiiCipher.keyIdOf(lead.sensitive) ?? ''}"): ` +
        'if that key was dropped from LEADFLOW_PII_KEYS, add it back after the active key and run again',
    );
  }
  return cipher.encrypt(plaintext);
}

/** Swaps one lead's ciphertext unless it changed since it was read (another re-encryption, a purge). */
async function swapCiphertext(db: Db, lead: StoredCiphertext, replacement: string): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set({ sensitive: replacement })
    .where('id', '=', lead.id)
    .where('sensitive', '=', lead.sensitive)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Re-encrypts with the active key every unpurged lead whose ciphertext names
 * another key, walking the table in primary-key order, `batchSize` leads per
 * page and per transaction; returns how many leads this call re-encrypted.
 *
 * Resumable: leads already under the active key are skipped, so a run that
 * stopped halfway (or a second run) only does what is left. Safe beside
 * intake and other runs: new leads are written under the active key, and each
 * swap is conditional on the ciphertext that was read, so a lead changed in
 * between is left as the other writer made it.
 */
export async function reencryptLeads(db: Db, cipher: PiiCipher, batchSize: number): Promise<number> {
  let reencrypted = 0;
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('leads')
      .select(['id', 'sensitive'])
      .where('id', '>', after)
      .where('sensitive_purged_at', 'is', null)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (page.length === 0) return reencrypted;
    after = page[page.length - 1].id;
    // SQLite answers synchronously: without a turn of the event loop between
    // pages, a long run would hold up intake until its end.
    await nextTurn();
    // Encrypted before the transaction opens, so that it holds its locks only for the writes.
    const swaps = page
      .filter((lead) => PiiCipher.keyIdOf(lead.sensitive) !== cipher.activeKeyId)
      .map((lead) => ({ lead, replacement: underActiveKey(cipher, lead) }));
    if (swaps.length === 0) continue;
    reencrypted += await db.transaction().execute(async (trx) => {
      let swapped = 0;
      for (const { lead, replacement } of swaps) if (await swapCiphertext(trx, lead, replacement)) swapped++;
      return swapped;
    });
  }
}
