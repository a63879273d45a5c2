import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimitDecision } from '@leadflow/gateway/src/rate-limit/rate-limiter';
import { createRedisClient } from '@leadflow/gateway/src/rate-limit/redis-client';
import { RedisRateLimiter } from '@leadflow/gateway/src/rate-limit/redis-rate-limiter';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { deleteKeys, REDIS_URL, requireSharedRedis } from '../../support/redis.js';

async function connectedClient(): Promise<Redis> {
  const redis = createRedisClient(REDIS_URL);
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve);
    setTimeout(() => reject(new Error('Redis not ready within 5 s')), 5000).unref();
  });
  return redis;
}

function allowedCount(decisions: RateLimitDecision[]): number {
  return decisions.filter((decision) => decision.allowed).length;
}

async function consumeMany(limiter: RedisRateLimiter, bucket: string, limit: number, times: number) {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < times; i += 1) decisions.push(await limiter.consume(bucket, limit));
  return decisions;
}

describe('RedisRateLimiter (Redis at REDIS_URL)', () => {
  const keyPrefix = `leadflow:test:rl:${randomUUID()}:`;
  const limiters: RedisRateLimiter[] = [];
  let inspector: Redis | undefined;

  async function newLimiter(windowSeconds = 60): Promise<RedisRateLimiter> {
    const limiter = new RedisRateLimiter({ redis: await connectedClient(), keyPrefix, windowSeconds });
    limiters.push(limiter);
    return limiter;
  }

  before(async function () {
    await requireSharedRedis(this);
    inspector = await connectedClient();
  });

  after(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    if (inspector !== undefined) {
      await deleteKeys(inspector, keyPrefix);
      await inspector.quit();
    }
  });

  it('allows exactly the limit in a window and denies the next with the wait for the oldest', async () => {
    const limiter = await newLimiter();
    const decisions = await consumeMany(limiter, 'exact', 60, 61);
    expect(decisions.slice(0, 60).map((decision) => decision.remaining)).to.deep.equal([...Array(60).keys()].reverse());
    expect(allowedCount(decisions)).to.equal(60);
    expect(decisions[0]).to.deep.equal({ allowed: true, limit: 60, remaining: 59, resetSeconds: 0, windowSeconds: 60 });
    const denied = decisions[60]!;
    expect(denied).to.include({ allowed: false, limit: 60, remaining: 0, windowSeconds: 60 });
    expect(denied.resetSeconds).to.be.within(55, 60);
  });

  it('does not count denied requests and lets the key expire with the window', async () => {
    const limiter = await newLimiter();
    await consumeMany(limiter, 'denied', 3, 10);
    expect(await inspector!.zcard(`${keyPrefix}denied`)).to.equal(3);
    expect(await inspector!.pttl(`${keyPrefix}denied`)).to.be.within(1, 60_000);
  });

  it('keeps buckets independent', async () => {
    const limiter = await newLimiter();
    await consumeMany(limiter, 'first', 2, 2);
    expect(await limiter.consume('first', 2)).to.include({ allowed: false });
    expect(await limiter.consume('second', 2)).to.include({ allowed: true, remaining: 1 });
  });

  it('allows again once the oldest request has left the window', async () => {
    const limiter = await newLimiter(2);
    await consumeMany(limiter, 'recovers', 2, 2);
    const denied = await limiter.consume('recovers', 2);
    expect(denied).to.include({ allowed: false });
    expect(denied.resetSeconds).to.be.within(1, 2);
    await sleep(2200);
    expect(await limiter.consume('recovers', 2)).to.include({ allowed: true, remaining: 1 });
  });

  it('rolls: requests free only their own slots as they leave the window', async () => {
    const limiter = await newLimiter(2);
    await consumeMany(limiter, 'rolling', 4, 2);
    await sleep(1000);
    expect(allowedCount(await consumeMany(limiter, 'rolling', 4, 3))).to.equal(2);
    // The first pair has left (2 s), the second (sent at about 1 s) still counts until about 3 s.
    await sleep(1300);
    expect(allowedCount(await consumeMany(limiter, 'rolling', 4, 3))).to.equal(2);
  });

  it('shares one count between gateways: 60 in total, not 60 each', async () => {
    const [gatewayA, gatewayB] = [await newLimiter(), await newLimiter()];
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 60; i += 1) {
      decisions.push(await gatewayA.consume('shared', 60), await gatewayB.consume('shared', 60));
    }
    expect(allowedCount(decisions)).to.equal(60);
  });

  it('allows exactly the limit among concurrent calls', async () => {
    const [gatewayA, gatewayB] = [await newLimiter(), await newLimiter()];
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? gatewayA : gatewayB).consume('concurrent', 60)),
    );
    expect(allowedCount(decisions)).to.equal(60);
    const remaining = decisions.filter((decision) => decision.allowed).map((decision) => decision.remaining);
    expect(new Set(remaining).size, 'every allowed call saw its own count').to.equal(60);
  });

  it('applies a lowered limit to what is already counted', async () => {
    const limiter = await newLimiter();
    await consumeMany(limiter, 'lowered', 10, 10);
    const decision = await limiter.consume('lowered', 5);
    expect(decision).to.include({ allowed: false, limit: 5, remaining: 0 });
    expect(decision.resetSeconds).to.be.within(55, 60);
  });
});
