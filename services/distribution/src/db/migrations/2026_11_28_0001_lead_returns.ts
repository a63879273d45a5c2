import { type Kysely, MysqlAdapter } from 'kysely';

// Frozen: a migration never changes once released.
// Returns: a publisher's clawback terms, and one row per returned lead. The lead id is unique (a lead is
// returned once, whichever instance records it first) and so is the caller's request id (a retry finds
// the return it already made).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('publishers')
    .addColumn('clawback_bps', 'integer', (col) => col.notNull().defaultTo(10_000))
    .execute();
  await db.schema
    .createTable('lead_returns')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull().unique().references('leads.id'))
    .addColumn('request_id', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('publisher_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('reason', 'varchar(64)', (col) => col.notNull())
    .addColumn('note', 'text')
    .addColumn('credit_cents', 'bigint', (col) => col.notNull())
    .addColumn('clawback_cents', 'bigint', (col) => col.notNull())
    .addColumn('margin_cents', 'bigint', (col) => col.notNull())
    .addColumn('sold_at', 'bigint', (col) => col.notNull())
    .addColumn('returned_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('lead_returns_buyer_sold_at_idx')
    .on('lead_returns')
    .columns(['buyer_id', 'sold_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const dropIndex = db.schema.dropIndex('lead_returns_buyer_sold_at_idx');
  // MySQL names an index within its table, SQLite within the database.
  await (db.getExecutor().adapter instanceof MysqlAdapter ? dropIndex.on('lead_returns') : dropIndex).execute();
  await db.schema.dropTable('lead_returns').execute();
  await db.schema.alterTable('publishers').dropColumn('clawback_bps').execute();
}
