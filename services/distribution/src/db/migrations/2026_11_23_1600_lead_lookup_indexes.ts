import { type Kysely, MysqlAdapter } from 'kysely';

// Frozen: a migration never changes once released.
// Operators find a lead by the clickid a publisher's ticket quotes, and list leads by publisher or
// buyer, newest first.
const INDEXES = [
  { name: 'leads_clickid_idx', columns: ['clickid'] },
  { name: 'leads_publisher_created_idx', columns: ['publisher_id', 'created_at'] },
  { name: 'leads_buyer_created_idx', columns: ['buyer_id', 'created_at'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) await db.schema.createIndex(index.name).on('leads').columns(index.columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) {
    const dropIndex = db.schema.dropIndex(index.name);
    // MySQL names an index within its table, SQLite within the database.
    await (db.getExecutor().adapter instanceof MysqlAdapter ? dropIndex.on('leads') : dropIndex).execute();
  }
}
