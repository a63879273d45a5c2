import { type Kysely, MysqlAdapter } from 'kysely';

// Frozen: a migration never changes once released.
// A purged lead keeps its row, hashes and outcome; its `sensitive` ciphertext is
// emptied and this column says when. The index serves the purge's one query,
// "not yet purged, created before T, oldest first", without walking the leads
// already purged, which are most of an old table.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('leads').addColumn('sensitive_purged_at', 'bigint').execute();
  await db.schema
    .createIndex('leads_pii_purge_idx')
    .on('leads')
    .columns(['sensitive_purged_at', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const dropIndex = db.schema.dropIndex('leads_pii_purge_idx');
  // MySQL names an index within its table, SQLite within the database.
  await (db.getExecutor().adapter instanceof MysqlAdapter ? dropIndex.on('leads') : dropIndex).execute();
  await db.schema.alterTable('leads').dropColumn('sensitive_purged_at').execute();
}
