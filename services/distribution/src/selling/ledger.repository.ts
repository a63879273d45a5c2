import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';
import { rowsInsert } from '../db/insert-rows.js';
import type { LedgerEntryRow } from '../db/schema.js';
import type { LedgerEntry } from './ledger.js';

function entryRow(entry: LedgerEntry): LedgerEntryRow {
  return {
    id: entry.id,
    lead_id: entry.leadId,
    entry_type: entry.type,
    account: entry.account,
    amount_cents: entry.amountCents,
    created_at: entry.createdAt,
  };
}

export function ledgerInsert(db: Db, entries: readonly LedgerEntry[]): CompiledQuery | undefined {
  return rowsInsert(db, 'ledger_entries', entries.map(entryRow));
}
