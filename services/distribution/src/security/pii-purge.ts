import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../db/database.js';
import { withoutPersonalFields } from './personal-fields.js';

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
 * Removes every personal field of every lead created before the cutoff,
 * batch by batch, and returns how many leads this call purged: the
 * ciphertext is emptied, and a lead of an older release that still keeps
 * names or contacts in its plain `fields` loses them there too. The keyed
 * hashes, the outcome and the ledger stay, so duplicate checks and reports
 * are unaffected.
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
      .select(['id', 'fields'])
      .where('sensitive_purged_at', 'is', null)
      .where('created_at', '<', window.createdBefore)
      .orderBy('created_at')
      .limit(PURGE_BATCH)
      .execute();
    if (batch.length === 0) break;
    const purge = { sensitive: '', sensitive_purged_at: window.now };
    const plain = batch.flatMap((lead) => {
      const fields = withoutPersonalFields(lead.fields);
      return fields === undefined ? [] : [{ id: lead.id, fields }];
    });
    for (const lead of plain) {
      const result = await db
        .updateTable('leads')
        .set({ ...purge, fields: lead.fields })
        .where('id', '=', lead.id)
        .where('sensitive_purged_at', 'is', null)
        .executeTakeFirst();
      purged += Number(result.numUpdatedRows);
    }
    const plainIds = new Set(plain.map((lead) => lead.id));
    const sealed = batch.filter((lead) => !plainIds.has(lead.id));
    if (sealed.length > 0) {
      const result = await db
        .updateTable('leads')
        .set(purge)
        .where(
          'id',
          'in',
          sealed.map((lead) => lead.id),
        )
        .where('sensitive_purged_at', 'is', null)
        .executeTakeFirst();
      purged += Number(result.numUpdatedRows);
    }
    // SQLite answers synchronously: without a turn of the event loop between
    // batches, a long purge would hold up intake until its end.
    await nextTurn();
  }
  return purged;
}
