import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database, LeadRow } from '../db/schema.js';
import { StatusError } from '../errors.js';
import { type StoredPersonalData, sealedForm, UndecryptableLead } from './personal-fields.js';
import type { PiiCipher } from './pii-cipher.js';

interface Swap {
  lead: StoredPersonalData;
  replacement: Pick<LeadRow, 'fields' | 'sensitive'>;
}

/** What a page of leads should become; the plaintext never leaves sealedForm. */
function swapsFor(cipher: PiiCipher, page: StoredPersonalData[]): Swap[] {
  const swaps: Swap[] = [];
  for (const lead of page) {
    let replacement: Swap['replacement'] | undefined;
    try {
      replacement = sealedForm(cipher, lead);
    } catch (error) {
      if (!(error instanceof UndecryptableLead)) throw error;
      throw new StatusError(
        'failed_precondition',
        `${error.message}: if that key was dropped from LEADFLOW_PII_KEYS, add it back after the active key and run again`,
      );
    }
    if (replacement) swaps.push({ lead, replacement });
  }
  return swaps;
}

/** Swaps one lead's stored form unless it changed since it was read (another run, a purge). */
async function swap(db: Kysely<Database>, { lead, replacement }: Swap): Promise<boolean> {
  const result = await db
    .updateTable('leads')
    .set(replacement)
    .where('id', '=', lead.id)
    .where('sensitive', '=', lead.sensitive)
    .where('fields', '=', lead.fields)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

async function swapAll(db: Kysely<Database>, swaps: Swap[]): Promise<number> {
  let swapped = 0;
  for (const each of swaps) if (await swap(db, each)) swapped++;
  return swapped;
}

/**
 * Brings every lead to its sealed form (sealedForm): personal fields that a
 * lead of an older release keeps in plain text are moved into its
 * ciphertext (or, purged, dropped), and every ciphertext under another key
 * is re-encrypted with the active one. Walks the table in primary-key
 * order, `batchSize` leads per page and per transaction; returns how many
 * leads this call changed.
 *
 * Resumable: leads already sealed are skipped, so a run that stopped
 * halfway (or a second run) only does what is left. Safe beside intake and
 * other runs: new leads are written sealed, and each swap is conditional on
 * what was read, so a lead changed in between is left as the other writer
 * made it. Inside a transaction (a migration on SQLite) the pages are
 * written in it; otherwise each page commits on its own.
 */
export async function reencryptLeads(db: Kysely<Database>, cipher: PiiCipher, batchSize: number): Promise<number> {
  let changed = 0;
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('leads')
      .select(['id', 'fields', 'sensitive', 'sensitive_purged_at'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (page.length === 0) return changed;
    after = page[page.length - 1]!.id;
    // SQLite answers synchronously: without a turn of the event loop between
    // pages, a long run would hold up intake until its end.
    await nextTurn();
    // Encrypted before the transaction opens, so that it holds its locks only for the writes.
    const swaps = swapsFor(cipher, page);
    if (swaps.length === 0) continue;
    changed += db.isTransaction
      ? await swapAll(db, swaps)
      : await db.transaction().execute((trx) => swapAll(trx, swaps));
  }
}
