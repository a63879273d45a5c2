import type { Kysely } from 'kysely';

// Frozen once released. While a lead is posted to a buyer with a duplicate
// policy, the person is held for that buyer, so that a second lead of the same
// person arriving at the same time is not posted to it too.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('buyer_person_holds')
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('person', 'varchar(80)', (col) => col.notNull())
    .addColumn('held_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('buyer_person_holds_pk', ['buyer_id', 'person'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('buyer_person_holds').execute();
}
