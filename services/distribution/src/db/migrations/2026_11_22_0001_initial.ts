import type { Kysely } from 'kysely';

// Frozen: a migration never changes once released. Types stay portable between
// SQLite and MySQL (no RETURNING, no partial indexes, no native booleans).
// Only the indexes something queries: each one is written on every lead insert.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publishers')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('rate_limit_per_minute', 'integer', (col) => col.notNull())
    .addColumn('payout_share_bps', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('publisher_keys')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('publisher_id', 'varchar(40)', (col) => col.notNull().references('publishers.id'))
    .addColumn('key_hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('key_hint', 'varchar(8)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('publisher_keys_publisher_idx').on('publisher_keys').column('publisher_id').execute();

  await db.schema
    .createTable('buyers')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(200)', (col) => col.notNull().unique())
    .addColumn('active', 'integer', (col) => col.notNull())
    .addColumn('definition', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('buyer_cap_counters')
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('period', 'varchar(16)', (col) => col.notNull())
    .addColumn('leads', 'integer', (col) => col.notNull())
    .addColumn('spend_cents', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('buyer_cap_counters_pk', ['buyer_id', 'period'])
    .execute();

  await db.schema
    .createTable('leads')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('publisher_id', 'varchar(40)', (col) => col.notNull().references('publishers.id'))
    .addColumn('clickid', 'varchar(128)', (col) => col.notNull())
    .addColumn('fingerprint', 'char(64)', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('is_test', 'integer', (col) => col.notNull())
    .addColumn('claim_token', 'varchar(40)', (col) => col.notNull())
    .addColumn('claimed_at', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('price_floor_cents', 'bigint', (col) => col.notNull())
    .addColumn('loan_amount_cents', 'bigint', (col) => col.notNull())
    .addColumn('income_net_monthly_cents', 'bigint')
    .addColumn('state', 'varchar(2)', (col) => col.notNull())
    .addColumn('ssn_hash', 'char(64)', (col) => col.notNull())
    .addColumn('email_hash', 'char(64)', (col) => col.notNull())
    .addColumn('phone_hash', 'char(64)', (col) => col.notNull())
    .addColumn('fields', 'text', (col) => col.notNull())
    .addColumn('sensitive', 'text', (col) => col.notNull())
    .addColumn('tracking', 'text', (col) => col.notNull())
    .addColumn('buyer_id', 'varchar(40)')
    .addColumn('payout_cents', 'bigint')
    .addColumn('redirect_url', 'varchar(2048)')
    .addColumn('reason', 'varchar(500)')
    .addColumn('processing_ms', 'double precision')
    .addUniqueConstraint('leads_publisher_clickid_unique', ['publisher_id', 'clickid'])
    .execute();
  await db.schema.createIndex('leads_ssn_hash_idx').on('leads').column('ssn_hash').execute();
  await db.schema.createIndex('leads_email_hash_idx').on('leads').column('email_hash').execute();
  await db.schema.createIndex('leads_phone_hash_idx').on('leads').column('phone_hash').execute();

  await db.schema
    .createTable('buyer_attempts')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull().references('leads.id'))
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('kind', 'varchar(8)', (col) => col.notNull())
    .addColumn('started_at', 'bigint', (col) => col.notNull())
    .addColumn('duration_ms', 'double precision', (col) => col.notNull())
    .addColumn('outcome', 'varchar(16)', (col) => col.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('bid_cents', 'bigint')
    .addColumn('price_cents', 'bigint')
    .addColumn('reference', 'varchar(200)')
    .addColumn('reason', 'varchar(500)')
    .execute();
  await db.schema.createIndex('buyer_attempts_lead_idx').on('buyer_attempts').column('lead_id').execute();

  await db.schema
    .createTable('sales')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull().unique().references('leads.id'))
    .addColumn('publisher_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('charge_cents', 'bigint', (col) => col.notNull())
    .addColumn('payout_cents', 'bigint', (col) => col.notNull())
    .addColumn('margin_cents', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  // Append-only: rows are inserted, never updated or deleted. Each sale writes
  // three entries that sum to zero.
  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull().references('leads.id'))
    .addColumn('entry_type', 'varchar(24)', (col) => col.notNull())
    .addColumn('account', 'varchar(60)', (col) => col.notNull())
    .addColumn('amount_cents', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('ledger_entries_lead_type_unique', ['lead_id', 'entry_type'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'ledger_entries',
    'sales',
    'buyer_attempts',
    'leads',
    'buyer_cap_counters',
    'buyers',
    'publisher_keys',
    'publishers',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
