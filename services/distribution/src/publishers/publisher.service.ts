import { isWellFormedPublisherKey } from '@leadflow/core/publisher-key-format';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '@leadflow/service-kit/config';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import type { Db } from '../db/database.js';
import { invalidField, StatusError } from '../errors.js';
import { newId } from '../ids.js';
import { disallowedCharactersProblem } from '../leads/text.js';
import type { Publisher, PublisherKeyInfo, PublisherWithKeys } from './publisher.js';
import type { LiveKey } from './publisher.repository.js';
import * as repository from './publisher.repository.js';
import { generatePublisherKey, hashesMatch, hashPublisherKey, publisherKeyHint } from './publisher-key.js';
import { PAYOUT_SHARE_BPS, RATE_LIMIT_PER_MINUTE } from './publisher-limits.js';

export const DEFAULT_PAYOUT_SHARE_BPS = 8000;
/** A returned lead's payout is taken back in full unless the publisher's terms say otherwise. */
export const DEFAULT_CLAWBACK_BPS = 10_000;
export const MAX_LIVE_KEYS = 2;
/** How long a resolved key is trusted: revocation takes effect within this. */
export const KEY_CACHE_TTL_MS = 5000;

export interface IssuedKey {
  key: string;
  info: PublisherKeyInfo;
}

export interface NewPublisher {
  name: string;
  rateLimitPerMinute?: number;
  payoutShareBps?: number;
  /** Undefined: DEFAULT_CLAWBACK_BPS; 0 is a real choice (the network absorbs returns). */
  clawbackBps?: number;
}

function validateRateLimit(rateLimitPerMinute: number): void {
  const { min, max } = RATE_LIMIT_PER_MINUTE;
  if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < min || rateLimitPerMinute > max) {
    throw invalidField('rate_limit_per_minute', `must be a whole number from ${min} to ${max}`, {
      message: `rate limit must be a whole number from ${min} to ${max}`,
    });
  }
}

function validatePayoutShare(payoutShareBps: number): void {
  const { min, max } = PAYOUT_SHARE_BPS;
  if (!Number.isInteger(payoutShareBps) || payoutShareBps < min || payoutShareBps > max) {
    throw invalidField('payout_share_bps', `must be ${min} to ${max} basis points`, {
      message: `payout share must be ${min} to ${max} basis points`,
    });
  }
}

function validateClawback(clawbackBps: number): void {
  if (!Number.isInteger(clawbackBps) || clawbackBps < 0 || clawbackBps > 10_000) {
    throw invalidField('clawback_bps', 'must be 0 to 10000 basis points', {
      message: 'clawback must be 0 (absorbed by the network) to 10000 basis points (in full)',
    });
  }
}

export class PublisherService {
  private readonly keyCache = new TtlCache<string, LiveKey | null>(KEY_CACHE_TTL_MS, 100_000);

  constructor(private readonly db: Db) {}

  /** The publisher behind a live key, or undefined; never logs or stores the key. */
  async resolveKey(key: string): Promise<LiveKey | undefined> {
    if (!isWellFormedPublisherKey(key)) return undefined;
    const keyHash = hashPublisherKey(key);
    let live = this.keyCache.get(keyHash);
    if (live === undefined) {
      live = (await repository.findLiveKeyByHash(this.db, keyHash)) ?? null;
      this.keyCache.set(keyHash, live);
    }
    return live && hashesMatch(live.keyHash, keyHash) ? live : undefined;
  }

  async create(input: NewPublisher): Promise<{ publisher: PublisherWithKeys; key: string }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) {
      throw invalidField('name', 'must be 1 to 200 characters');
    }
    // A name is shown in lists, logs and CSV reports as a lead's free text is: the same characters are refused.
    const problem = disallowedCharactersProblem(name);
    if (problem) throw invalidField('name', problem);
    const rateLimitPerMinute = input.rateLimitPerMinute || DEFAULT_RATE_LIMIT_PER_MINUTE;
    validateRateLimit(rateLimitPerMinute);
    const payoutShareBps = input.payoutShareBps || DEFAULT_PAYOUT_SHARE_BPS;
    validatePayoutShare(payoutShareBps);
    const clawbackBps = input.clawbackBps ?? DEFAULT_CLAWBACK_BPS;
    validateClawback(clawbackBps);
    const now = Date.now();
    const publisher: Publisher = {
      id: newId('pub', now),
      name,
      rateLimitPerMinute,
      payoutShareBps,
      clawbackBps,
      createdAt: now,
    };
    const issued = newKey(publisher.id, now);
    await this.db.transaction().execute(async (trx) => {
      // Names are how operators and reports tell publishers apart: two of one name would be mixed up.
      const namesake = await repository.findPublisherByName(trx, name);
      if (namesake) {
        throw new StatusError(
          'already_exists',
          `a publisher named "${namesake.name}" already exists (${namesake.id}): choose another name`,
          {
            reason: 'PUBLISHER_NAME_TAKEN',
            violations: [{ field: 'name', description: 'is the name of another publisher', reason: 'FIELD_INVALID' }],
          },
        );
      }
      await repository.insertPublisher(trx, publisher);
      await repository.insertPublisherKey(trx, issued.info);
    });
    return { publisher: { ...publisher, keys: [issued.info] }, key: issued.key };
  }

  async list(): Promise<PublisherWithKeys[]> {
    const publishers = await repository.listPublishers(this.db);
    const keys = await repository.listKeysOfPublishers(
      this.db,
      publishers.map((publisher) => publisher.id),
    );
    return publishers.map((publisher) => ({
      ...publisher,
      keys: keys.filter((key) => key.publisherId === publisher.id),
    }));
  }

  async get(publisherId: string): Promise<PublisherWithKeys> {
    const publisher = await repository.findPublisher(this.db, publisherId);
    if (!publisher) throw new StatusError('not_found', 'no such publisher');
    return { ...publisher, keys: await repository.listKeysOfPublishers(this.db, [publisherId]) };
  }

  async rotateKey(publisherId: string): Promise<IssuedKey> {
    await this.get(publisherId);
    if ((await repository.countLiveKeys(this.db, publisherId)) >= MAX_LIVE_KEYS) {
      throw new StatusError(
        'failed_precondition',
        `publisher already holds ${MAX_LIVE_KEYS} live keys: revoke one first`,
      );
    }
    const issued = newKey(publisherId, Date.now());
    await repository.insertPublisherKey(this.db, issued.info);
    return issued;
  }

  async revokeKey(keyId: string): Promise<PublisherKeyInfo> {
    const key = await repository.findKey(this.db, keyId);
    if (!key) throw new StatusError('not_found', 'no such key');
    await repository.revokeKey(this.db, keyId, Date.now());
    this.keyCache.delete(key.keyHash);
    return (await repository.findKey(this.db, keyId))!;
  }

  async setRateLimit(publisherId: string, rateLimitPerMinute: number): Promise<PublisherWithKeys> {
    validateRateLimit(rateLimitPerMinute);
    await this.get(publisherId);
    await repository.updateRateLimit(this.db, publisherId, rateLimitPerMinute);
    this.keyCache.clear();
    return this.get(publisherId);
  }

  async setClawback(publisherId: string, clawbackBps: number): Promise<PublisherWithKeys> {
    validateClawback(clawbackBps);
    await this.get(publisherId);
    await repository.updateClawback(this.db, publisherId, clawbackBps);
    return this.get(publisherId);
  }
}

function newKey(publisherId: string, now: number): IssuedKey {
  const key = generatePublisherKey();
  return {
    key,
    info: {
      id: newId('key', now),
      publisherId,
      keyHash: hashPublisherKey(key),
      hint: publisherKeyHint(key),
      createdAt: now,
      revokedAt: undefined,
    },
  };
}
