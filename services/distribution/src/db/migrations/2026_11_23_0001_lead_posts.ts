import type { Kysely } from 'kysely';

// Frozen once released. The post intents of the sale protocol: a row is committed
// before a lead is posted to a buyer and carries the buyer's answer once it
// arrives, so that recovery knows what may have reached a buyer. One row per
// lead and buyer: a lead is never posted twice to the same buyer. The status
// index serves the reconciler's sweeps of stale and unconfirmed leads.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lead_posts')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('lead_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('buyer_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('charge_cents', 'bigint')
    .addColumn('payout_cents', 'bigint')
    .addColumn('redirect_url', 'varchar(2048)')
    .addColumn('reference', 'varchar(200)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('answered_at', 'bigint')
    .addColumn('resolved_by', 'varchar(16)')
    .execute();
  await db.schema
    .createIndex('lead_posts_lead_buyer_idx')
    .on('lead_posts')
    .columns(['lead_id', 'buyer_id'])
    .unique()
    .execute();
  await db.schema.createIndex('lead_posts_buyer_idx').on('lead_posts').columns(['buyer_id', 'created_at']).execute();
  await db.schema.createIndex('leads_status_claimed_idx').on('leads').columns(['status', 'claimed_at']).execute();
  // A lead whose sale a crash cut off may take its own person hold again.
  await db.schema.alterTable('buyer_person_holds').addColumn('lead_id', 'varchar(40)').execute();
  await backfillPosts(db);
}

/** Duplicate checks read the intents: the posts recorded before them become intents with their answers. */
async function backfillPosts(db: Kysely<any>): Promise<void> {
  const STATES: Record<string, string> = {
    accepted: 'accepted',
    rejected: 'rejected',
    unknown: 'unknown',
    error: 'failed',
    timeout: 'failed',
  };
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('buyer_attempts')
      .select(['id', 'lead_id', 'buyer_id', 'outcome', 'price_cents', 'reference', 'started_at', 'duration_ms'])
      .where('kind', '=', 'post')
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const taken = await db
        .selectFrom('lead_posts')
        .select('id')
        .where('lead_id', '=', row.lead_id)
        .where('buyer_id', '=', row.buyer_id)
        .executeTakeFirst();
      if (taken) continue;
      await db
        .insertInto('lead_posts')
        .values({
          id: `pst_${row.id}`.slice(0, 40),
          lead_id: row.lead_id,
          buyer_id: row.buyer_id,
          state: STATES[row.outcome] ?? 'failed',
          charge_cents: row.price_cents,
          reference: row.reference,
          created_at: row.started_at,
          answered_at: Math.round(row.started_at + row.duration_ms),
        })
        .execute();
    }
    after = rows[rows.length - 1].id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('buyer_person_holds').dropColumn('lead_id').execute();
  await db.schema.dropTable('lead_posts').execute();
}
