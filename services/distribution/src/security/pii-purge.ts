import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../db/database.js';

/** Leads per UPDATE: small statements, so intake never waits long behind a purge. */
const PURGE_BATCH = 500;

export interface PurgeWindow {
  /** Leads created before this epoch ms lose their sensitive fields. */
  createdBefore: number;
  /** Recorded as `sensitive_purged_at`. */
  now: number;
  /** Stops between batches (a closing service); what was purged stays purged. */
  signal?: AbortSignal;
}

/**
 * Empties the sensitive ciphertext of every lead created before the cutoff,
 * batch by batch, and returns how many leads this call purged. The keyed
 * hashes, the outcome and the ledger stay, so duplicate checks and reports are
 * unaffected.
 *
 * The ciphertext is replaced by nothing rather than by an encrypted empty
 * object: nothing is left that a leaked key could open, a purged lead needs no
 * key to be read (old keys can be dropped without re-encrypting purged
 * leads), and `sensitive_purged_at` tells "purged" from "never sent".
 *
 * Idempotent and safe to run from several instances at once: each UPDATE only
 * takes leads still unpurged, so two purges racing for a batch split it
 * between them and the loser's count is zero for the leads it lost.
 */
export async function purgeSensitiveFields(db: Db, window: PurgeWindow): Promise<number> {
  let purged = 0;
  while (!window.signal?.aborted) {
    const batch = await db
      .selectFrom('leads')
      .select('id')
      .where('sensitive_purged_at', 'is', null)
      .where('created_at', '<', window.createdBefore)
      .orderBy('created_at')
      .limit(PURGE_BATCH)
      .execute();
    if (batch.length === 0) break;
    const result = await db
      .updateTable('leads')
      .set({ sensitive: '', sensitive_purged_at: window.now })
      .where(
        'id',
        'in',
        batch.map((lead) => lead.id),
      )
      .where('sensitive_purged_at', 'is', null)
      .executeTakeFirst();
    purged += Number(result.numUpdatedRows);
    // SQLite answers synchronously: without a turn of the event loop between
    // batches, a long purge would hold up intake until its end.
    await nextTurn();
  }
  return purged;
}
