import type { Kysely } from 'kysely';

// Frozen once released. What each lead holds of a buyer's caps while it is
// posted to it, so that a sale an outage or a crash cut off gives its place back
// when the lead is taken over.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('buyer_cap_holds')
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('periods', 'varchar(200)', (col) => col.notNull())
    .addColumn('spend_cents', 'bigint', (col) => col.notNull())
    .addColumn('held_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('buyer_cap_holds_pk', ['lead_id', 'buyer_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('buyer_cap_holds').execute();
}
