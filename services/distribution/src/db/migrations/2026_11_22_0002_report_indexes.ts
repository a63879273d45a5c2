import { type Kysely, MysqlAdapter } from 'kysely';

// Frozen: a migration never changes once released.
// Reports read the leads created in a range of time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('leads_created_at_idx').on('leads').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const dropIndex = db.schema.dropIndex('leads_created_at_idx');
  // MySQL names an index within its table, SQLite within the database.
  await (db.getExecutor().adapter instanceof MysqlAdapter ? dropIndex.on('leads') : dropIndex).execute();
}
