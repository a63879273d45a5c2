import type { Kysely } from 'kysely';

// Frozen: a migration never changes once released.
// The ping tree's settings (routing mode, ping windows) as the `tree` key of a buyers document sets
// them: one row, created here so that applying a document only ever updates it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tree_settings')
    .addColumn('id', 'varchar(16)', (col) => col.primaryKey())
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.insertInto('tree_settings').values({ id: 'tree', settings: '{"tiers":[]}', updated_at: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tree_settings').execute();
}
