import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import Database from 'better-sqlite3';
import { Kysely, MysqlDialect, SqliteDialect } from 'kysely';
import { createPool } from 'mysql2';
import { LEAD_FIELDS } from './lead-fields.js';

type LeadRow = Record<string, string | number | null>;

export interface FloorDatabase {
  floor_lead: LeadRow;
}

const COLUMNS = LEAD_FIELDS.map((field) => [field, field.replace(/[A-Z0-9]+/g, (m) => `_${m.toLowerCase()}`)] as const);

/** MySQL when a URL is given, otherwise SQLite in dataDir set up as an embedded store would be. */
export function openDatabase(databaseUrl: string | undefined, dataDir: string): Kysely<FloorDatabase> {
  if (databaseUrl) {
    const pool = createPool({ uri: databaseUrl, connectionLimit: 10, supportBigNumbers: true, bigNumberStrings: true });
    return new Kysely({ dialect: new MysqlDialect({ pool }) });
  }
  const database = new Database(path.join(dataDir, 'floor.sqlite'));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  return new Kysely({ dialect: new SqliteDialect({ database }) });
}

export async function createLeadTable(db: Kysely<FloorDatabase>): Promise<void> {
  let table = db.schema
    .createTable('floor_lead')
    .addColumn('id', 'varchar(36)', (column) => column.primaryKey())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('buyer_status', 'varchar(16)')
    .addColumn('price_cents', 'bigint');
  for (const [, column] of COLUMNS) table = table.addColumn(column, 'varchar(255)', (c) => c.notNull());
  await table.execute();
}

/** One row per lead: every field, an id and the time; returns the id. */
export async function insertLead(db: Kysely<FloorDatabase>, lead: Lead): Promise<string> {
  const id = randomUUID();
  const row: LeadRow = { id, created_at: Date.now() };
  for (const [field, column] of COLUMNS) row[column] = lead[field];
  await db.insertInto('floor_lead').values(row).execute();
  return id;
}

/** The buyer's answer, on the lead's row. */
export async function recordAnswer(
  db: Kysely<FloorDatabase>,
  id: string,
  accepted: boolean,
  priceCents: number,
): Promise<void> {
  await db
    .updateTable('floor_lead')
    .set({ buyer_status: accepted ? 'sold' : 'rejected', price_cents: priceCents })
    .where('id', '=', id)
    .execute();
}
