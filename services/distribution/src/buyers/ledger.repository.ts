import type { Db } from '../db/database.js';
import { insertRows } from '../db/insert-rows.js';
import type { LedgerEntryRow } from '../db/schema.js';

export async function insertLedgerEntries(db: Db, entries: LedgerEntryRow[]): Promise<void> {
  await insertRows(db, 'ledger_entries', entries);
}
