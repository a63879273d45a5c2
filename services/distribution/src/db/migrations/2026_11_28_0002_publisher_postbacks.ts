import type { Kysely } from 'kysely';

// Frozen once released. Publishers' postbacks: where a publisher is told of its leads' outcomes after their
// answer, with the secret events are signed with (encrypted under the PII key ring), and the outbox of
// those events, written in the transaction of the change they tell of. The due index serves the delivery
// workers' sweeps, the publisher index `publisher postbacks`.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publisher_postbacks')
    .addColumn('publisher_id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('url', 'varchar(2048)', (col) => col.notNull())
    .addColumn('local', 'integer', (col) => col.notNull())
    .addColumn('signing_secret', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('publisher_events')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('publisher_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('type', 'varchar(32)', (col) => col.notNull())
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('lease_token', 'varchar(40)')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'varchar(200)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('publisher_events_due_idx')
    .on('publisher_events')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('publisher_events_publisher_idx')
    .on('publisher_events')
    .columns(['publisher_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('publisher_events').execute();
  await db.schema.dropTable('publisher_postbacks').execute();
}
