import type { Db } from '../db/database.js';
import type { PublisherKeyRow, PublisherRow } from '../db/schema.js';

export interface LiveKey {
  keyHash: string;
  publisherId: string;
  rateLimitPerMinute: number;
  payoutShareBps: number;
}

export async function insertPublisher(db: Db, publisher: PublisherRow): Promise<void> {
  await db.insertInto('publishers').values(publisher).execute();
}

export async function insertPublisherKey(db: Db, key: PublisherKeyRow): Promise<void> {
  await db.insertInto('publisher_keys').values(key).execute();
}

export async function findPublisher(db: Db, id: string): Promise<PublisherRow | undefined> {
  return db.selectFrom('publishers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listPublishers(db: Db): Promise<PublisherRow[]> {
  return db.selectFrom('publishers').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function listKeysOfPublishers(db: Db, publisherIds: string[]): Promise<PublisherKeyRow[]> {
  if (publisherIds.length === 0) return [];
  return db
    .selectFrom('publisher_keys')
    .selectAll()
    .where('publisher_id', 'in', publisherIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findKey(db: Db, keyId: string): Promise<PublisherKeyRow | undefined> {
  return db.selectFrom('publisher_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

export async function findLiveKeyByHash(db: Db, keyHash: string): Promise<LiveKey | undefined> {
  return db
    .selectFrom('publisher_keys')
    .innerJoin('publishers', 'publishers.id', 'publisher_keys.publisher_id')
    .select([
      'publisher_keys.key_hash as keyHash',
      'publishers.id as publisherId',
      'publishers.rate_limit_per_minute as rateLimitPerMinute',
      'publishers.payout_share_bps as payoutShareBps',
    ])
    .where('publisher_keys.key_hash', '=', keyHash)
    .where('publisher_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function countLiveKeys(db: Db, publisherId: string): Promise<number> {
  const row = await db
    .selectFrom('publisher_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('publisher_id', '=', publisherId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function revokeKey(db: Db, keyId: string, revokedAt: number): Promise<void> {
  await db
    .updateTable('publisher_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function updateRateLimit(db: Db, publisherId: string, rateLimitPerMinute: number): Promise<void> {
  await db
    .updateTable('publishers')
    .set({ rate_limit_per_minute: rateLimitPerMinute })
    .where('id', '=', publisherId)
    .execute();
}
