import type { Db } from '../db/database.js';
import type { PublisherEventRow, PublisherEventState } from '../db/schema.js';

export interface StoredPostback {
  publisherId: string;
  url: string;
  local: boolean;
  /** Ciphertext under the PII key ring. */
  signingSecret: string;
}

export interface StoredEvent {
  id: string;
  publisherId: string;
  leadId: string;
  type: string;
  body: string;
  state: PublisherEventState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

export async function findPostback(db: Db, publisherId: string): Promise<StoredPostback | undefined> {
  const row = await db
    .selectFrom('publisher_postbacks')
    .selectAll()
    .where('publisher_id', '=', publisherId)
    .executeTakeFirst();
  return (
    row && { publisherId: row.publisher_id, url: row.url, local: row.local === 1, signingSecret: row.signing_secret }
  );
}

export async function insertPostback(db: Db, postback: StoredPostback, now: number): Promise<void> {
  await db
    .insertInto('publisher_postbacks')
    .values({
      publisher_id: postback.publisherId,
      url: postback.url,
      local: postback.local ? 1 : 0,
      signing_secret: postback.signingSecret,
      updated_at: now,
    })
    .execute();
}

export async function updatePostback(
  db: Db,
  publisherId: string,
  change: Partial<Omit<StoredPostback, 'publisherId'>>,
  now: number,
): Promise<void> {
  await db
    .updateTable('publisher_postbacks')
    .set({
      ...(change.url === undefined ? {} : { url: change.url }),
      ...(change.local === undefined ? {} : { local: change.local ? 1 : 0 }),
      ...(change.signingSecret === undefined ? {} : { signing_secret: change.signingSecret }),
      updated_at: now,
    })
    .where('publisher_id', '=', publisherId)
    .execute();
}

export async function insertEvent(
  db: Db,
  event: Pick<StoredEvent, 'id' | 'publisherId' | 'leadId' | 'type' | 'body'>,
  now: number,
): Promise<void> {
  await db
    .insertInto('publisher_events')
    .values({
      id: event.id,
      publisher_id: event.publisherId,
      lead_id: event.leadId,
      type: event.type,
      body: event.body,
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_token: null,
      lease_until: null,
      last_error: null,
      created_at: now,
      delivered_at: null,
    })
    .execute();
}

/** Up to `limit` ids of pending events due by `now` whose lease, if any, has lapsed; the oldest due first. */
export async function listDueEvents(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('publisher_events')
    .select('id')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The events not yet delivered nor given up, and when the oldest of them was written (undefined: none). */
export async function pendingEvents(db: Db): Promise<{ count: number; oldestCreatedAt: number | undefined }> {
  const row = await db
    .selectFrom('publisher_events')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('created_at').as('oldest')])
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), oldestCreatedAt: row?.oldest == null ? undefined : Number(row.oldest) };
}

/**
 * Takes the event for one try until `leaseUntil`, counting the try; undefined when another instance holds
 * it or it is no longer due. One conditional write: of several instances, one gets it.
 */
export async function claimEvent(
  db: Db,
  id: string,
  leaseToken: string,
  now: number,
  leaseUntil: number,
): Promise<StoredEvent | undefined> {
  const claimed = await db
    .updateTable('publisher_events')
    .set((eb) => ({ lease_token: leaseToken, lease_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  if (!claimed.numUpdatedRows) return undefined;
  const row = await db.selectFrom('publisher_events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return eventOfRow(row);
}

/** How a try ended, written only while `leaseToken` still holds the event. */
export async function recordTry(
  db: Db,
  id: string,
  leaseToken: string,
  result:
    | { state: 'delivered'; at: number }
    | { state: 'pending'; error: string; nextAttemptAt: number }
    | { state: 'failed'; error: string },
): Promise<void> {
  await db
    .updateTable('publisher_events')
    .set({
      state: result.state,
      lease_token: null,
      lease_until: null,
      ...(result.state === 'delivered' ? { delivered_at: result.at, last_error: null } : { last_error: result.error }),
      ...(result.state === 'pending' ? { next_attempt_at: result.nextAttemptAt } : {}),
    })
    .where('id', '=', id)
    .where('lease_token', '=', leaseToken)
    .execute();
}

/** The publisher's most recent events, newest first. */
export async function listEvents(db: Db, publisherId: string, limit: number): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('publisher_events')
    .selectAll()
    .where('publisher_id', '=', publisherId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(eventOfRow);
}

function eventOfRow(row: PublisherEventRow): StoredEvent {
  return {
    id: row.id,
    publisherId: row.publisher_id,
    leadId: row.lead_id,
    type: row.type,
    body: row.body,
    state: row.state,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
  };
}
