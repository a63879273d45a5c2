import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { StatusError } from '../errors.js';
import { PiiCipher } from './pii-cipher.js';

/**
 * Re-encrypts with the active key every publisher's postback signing secret stored under another key, so
 * that the older key can be dropped with the leads'; returns how many it changed. Each swap is conditional
 * on the ciphertext read, so a secret rotated meanwhile is left as the rotation wrote it.
 */
export async function reencryptPostbackSecrets(db: Kysely<Database>, cipher: PiiCipher): Promise<number> {
  const rows = await db.selectFrom('publisher_postbacks').select(['publisher_id', 'signing_secret']).execute();
  let changed = 0;
  for (const row of rows) {
    if (PiiCipher.keyIdOf(row.signing_secret) === cipher.activeKeyId) continue;
    let secret: string;
    try {
      secret = cipher.decrypt(row.signing_secret);
    } catch {
      throw new StatusError(
        'failed_precondition',
        `the postback secret of publisher ${row.publisher_id} is under a key not in LEADFLOW_PII_KEYS: add it back after the active key and run again`,
      );
    }
    const result = await db
      .updateTable('publisher_postbacks')
      .set({ signing_secret: cipher.encrypt(secret) })
      .where('publisher_id', '=', row.publisher_id)
      .where('signing_secret', '=', row.signing_secret)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) changed++;
  }
  return changed;
}
