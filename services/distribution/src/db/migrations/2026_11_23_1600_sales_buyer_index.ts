import { type Kysely, MysqlAdapter } from 'kysely';

// Frozen: a migration never changes once released.
// A buyer's usage this hour, day and month reads its sales since a time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('sales_buyer_created_at_idx').on('sales').columns(['buyer_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const dropIndex = db.schema.dropIndex('sales_buyer_created_at_idx');
  // MySQL names an index within its table, SQLite within the database.
  await (db.getExecutor().adapter instanceof MysqlAdapter ? dropIndex.on('sales') : dropIndex).execute();
}
