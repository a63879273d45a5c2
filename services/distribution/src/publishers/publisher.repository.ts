import type { Db } from '../db/database.js';
import type { PublisherKeyRow, PublisherRow } from '../db/schema.js';
import type { Publisher, PublisherKeyInfo } from './publisher.js';

export interface LiveKey {
  keyHash: string;
  publisherId: string;
  rateLimitPerMinute: number;
  payoutShareBps: number;
}

function publisherOfRow(row: PublisherRow): Publisher {
  return {
    id: row.id,
    name: row.name,
    rateLimitPerMinute: row.rate_limit_per_minute,
    payoutShareBps: row.payout_share_bps,
    clawbackBps: row.clawback_bps,
    createdAt: row.created_at,
  };
}

function keyOfRow(row: PublisherKeyRow): PublisherKeyInfo {
  return {
    id: row.id,
    publisherId: row.publisher_id,
    keyHash: row.key_hash,
    hint: row.key_hint,
    createdAt: row.created_at,
    revokedAt: row.revoked_at ?? undefined,
  };
}

export async function insertPublisher(db: Db, publisher: Publisher): Promise<void> {
  await db
    .insertInto('publishers')
    .values({
      id: publisher.id,
      name: publisher.name,
      rate_limit_per_minute: publisher.rateLimitPerMinute,
      payout_share_bps: publisher.payoutShareBps,
      clawback_bps: publisher.clawbackBps,
      created_at: publisher.createdAt,
    })
    .execute();
}

export async function insertPublisherKey(db: Db, key: PublisherKeyInfo): Promise<void> {
  await db
    .insertInto('publisher_keys')
    .values({
      id: key.id,
      publisher_id: key.publisherId,
      key_hash: key.keyHash,
      key_hint: key.hint,
      created_at: key.createdAt,
      revoked_at: key.revokedAt ?? null,
    })
    .execute();
}

export async function findPublisher(db: Db, id: string): Promise<Publisher | undefined> {
  const row = await db.selectFrom('publishers').selectAll().where('id', '=', id).executeTakeFirst();
  return row && publisherOfRow(row);
}

/** The publisher with this name, compared without regard to case. */
export async function findPublisherByName(db: Db, name: string): Promise<Publisher | undefined> {
  const row = await db
    .selectFrom('publishers')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return row && publisherOfRow(row);
}

export async function listPublishers(db: Db): Promise<Publisher[]> {
  const rows = await db.selectFrom('publishers').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(publisherOfRow);
}

export async function listKeysOfPublishers(db: Db, publisherIds: string[]): Promise<PublisherKeyInfo[]> {
  if (publisherIds.length === 0) return [];
  const rows = await db
    .selectFrom('publisher_keys')
    .selectAll()
    .where('publisher_id', 'in', publisherIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(keyOfRow);
}

export async function findKey(db: Db, keyId: string): Promise<PublisherKeyInfo | undefined> {
  const row = await db.selectFrom('publisher_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  return row && keyOfRow(row);
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

export async function updateClawback(db: Db, publisherId: string, clawbackBps: number): Promise<void> {
  await db.updateTable('publishers').set({ clawback_bps: clawbackBps }).where('id', '=', publisherId).execute();
}
