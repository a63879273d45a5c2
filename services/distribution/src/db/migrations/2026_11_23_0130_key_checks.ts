import type { Kysely } from 'kysely';

// Frozen once released. A check value per key this database's data was
// written with (`hmac`, `pii:<kid>`), so that a start with other keys (a
// restore without its secrets, a mistyped variable) is refused before it
// writes anything.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('key_checks')
    .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('check_value', 'varchar(128)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('key_checks').execute();
}
