import path from 'node:path';
import { createDatabase, type Database, type Db, SQLITE_FILE } from '@leadflow/distribution';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { StoredLead } from './market-figures.js';

/** The service's database after a run: its SQLite file opened read-only, or its MySQL database. */
function openStore(dataDir: string, databaseUrl: string | undefined): Db {
  if (databaseUrl) return createDatabase({ databaseUrl, dataDir, connectionLimit: 2 });
  const database = new SqliteDatabase(path.join(dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true });
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/**
 * What the service stored of each of these leads: its clickid and status, processing time, pings and
 * posts, buyers skipped and why, sale; buyers by name.
 */
export async function readStoredLeads(
  dataDir: string,
  databaseUrl: string | undefined,
  leadIds: ReadonlySet<string>,
): Promise<Map<string, StoredLead>> {
  const db = openStore(dataDir, databaseUrl);
  try {
    const buyers = await db.selectFrom('buyers').select(['id', 'name']).execute();
    const nameOf = new Map(buyers.map((buyer) => [buyer.id, buyer.name]));
    const stored = new Map<string, StoredLead>();
    for (const lead of await db.selectFrom('leads').select(['id', 'clickid', 'status', 'processing_ms']).execute()) {
      if (!leadIds.has(lead.id)) continue;
      stored.set(lead.id, {
        clickid: lead.clickid,
        status: lead.status,
        processingMs: lead.processing_ms,
        calls: [],
        skips: [],
        chargeCents: 0,
        payoutCents: 0,
      });
    }
    const attempts = await db
      .selectFrom('buyer_attempts')
      .select(['lead_id', 'buyer_id', 'kind', 'started_at', 'duration_ms', 'outcome', 'reason'])
      .execute();
    for (const attempt of attempts) {
      const lead = stored.get(attempt.lead_id);
      if (!lead) continue;
      const buyer = nameOf.get(attempt.buyer_id) ?? attempt.buyer_id;
      if (attempt.kind === 'skip') {
        lead.skips.push({ buyer, reason: attempt.reason });
        continue;
      }
      lead.calls.push({
        buyer,
        kind: attempt.kind === 'ping' ? 'ping' : 'post',
        startedAt: Number(attempt.started_at),
        durationMs: Number(attempt.duration_ms),
        outcome: attempt.outcome,
        late:
          attempt.kind === 'ping' && (attempt.reason?.startsWith('answered after the ping window: not used') ?? false),
      });
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
