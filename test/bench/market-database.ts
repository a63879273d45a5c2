import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { createDatabase, type Db, SQLITE_FILE } from '../../services/distribution/src/db/database.js';
import type { Database } from '../../services/distribution/src/db/schema.js';
import type { BuyerCall, StoredLead } from './market-figures.js';

/** The service's database after a run: its SQLite file opened read-only, or its MySQL database. */
function openStore(dataDir: string, databaseUrl: string | undefined): Db {
  if (databaseUrl) return createDatabase({ databaseUrl, dataDir, connectionLimit: 2 });
  const database = new SqliteDatabase(path.join(dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true });
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** What the service stored of each of these leads: processing time, pings and posts (with tiers), sale. */
export async function readStoredLeads(
  dataDir: string,
  databaseUrl: string | undefined,
  leadIds: ReadonlySet<string>,
): Promise<Map<string, StoredLead>> {
  const db = openStore(dataDir, databaseUrl);
  try {
    const buyers = await db.selectFrom('buyers').select(['id', 'definition']).execute();
    const tierOf = new Map(buyers.map((buyer) => [buyer.id, (JSON.parse(buyer.definition) as { tier: number }).tier]));
    const stored = new Map<string, StoredLead>();
    for (const lead of await db.selectFrom('leads').select(['id', 'processing_ms']).execute()) {
      if (leadIds.has(lead.id))
        stored.set(lead.id, { processingMs: lead.processing_ms, calls: [], chargeCents: 0, payoutCents: 0 });
    }
    const attempts = await db
      .selectFrom('buyer_attempts')
      .select(['lead_id', 'buyer_id', 'kind', 'duration_ms', 'outcome'])
      .where('kind', 'in', ['ping', 'post'])
      .execute();
    for (const attempt of attempts) {
      const call: BuyerCall = {
        tier: tierOf.get(attempt.buyer_id) ?? Number.NaN,
        kind: attempt.kind === 'ping' ? 'ping' : 'post',
        durationMs: attempt.duration_ms,
        outcome: attempt.outcome,
      };
      stored.get(attempt.lead_id)?.calls.push(call);
    }
    for (const sale of await db.selectFrom('sales').select(['lead_id', 'charge_cents', 'payout_cents']).execute()) {
      const lead = stored.get(sale.lead_id);
      if (lead) Object.assign(lead, { chargeCents: sale.charge_cents, payoutCents: sale.payout_cents });
    }
    return stored;
  } finally {
    await db.destroy();
  }
}
