import { randomUUID } from 'node:crypto';
import { FallbackRateLimiter } from '@leadflow/gateway/src/rate-limit/fallback-rate-limiter';
import { createRateLimiter } from '@leadflow/gateway/src/rate-limit/index';
import { LocalRateLimiter } from '@leadflow/gateway/src/rate-limit/local-rate-limiter';
import { DEFAULT_KEY_PREFIX } from '@leadflow/gateway/src/rate-limit/redis-rate-limiter';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { freePort } from '../../support/ports.js';
import { capturingLogger, REDIS_URL, requireSharedRedis, WARN } from '../../support/redis.js';

describe('createRateLimiter', () => {
  it('counts in process when no Redis URL is configured', async () => {
    const { logger } = capturingLogger();
    const limiter = createRateLimiter({ logger });
    expect(limiter).to.be.instanceOf(LocalRateLimiter);
    expect(await limiter.consume('publisher-1', 1)).to.deep.equal({
      allowed: true,
      limit: 1,
      remaining: 0,
      resetSeconds: 60,
      windowSeconds: 60,
    });
    await limiter.close();
  });

  it('answers from memory, fast, when the configured Redis is unreachable', async () => {
    const { logger, lines } = capturingLogger();
    let fallbacks = 0;
    const limiter = createRateLimiter({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      logger,
      onFallback: () => (fallbacks += 1),
    });
    const started = performance.now();
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.consume('publisher-1', 3)));
    expect(performance.now() - started).to.be.below(500);
    expect(decisions.filter((decision) => decision.allowed)).to.have.length(3);
    expect(fallbacks).to.equal(5);
    expect(lines.filter((line) => line.level === WARN)).to.have.length(1);
    await limiter.close();
  });

  describe('with the Redis at REDIS_URL', () => {
    const bucket = `test-${randomUUID()}`;
    let inspector: Redis | undefined;

    before(async function () {
      await requireSharedRedis(this);
      inspector = new Redis(REDIS_URL);
    });

    after(async () => {
      await inspector?.del(`${DEFAULT_KEY_PREFIX}${bucket}`);
      await inspector?.quit();
    });

    it('counts in Redis under the leadflow:rl: prefix from the first call', async () => {
      const { logger, lines } = capturingLogger();
      let fallbacks = 0;
      const limiter = createRateLimiter({ redisUrl: REDIS_URL, logger, onFallback: () => (fallbacks += 1) });
      expect(limiter).to.be.instanceOf(FallbackRateLimiter);
      expect(await limiter.consume(bucket, 60)).to.include({ allowed: true, remaining: 59 });
      expect(await limiter.consume(bucket, 60)).to.include({ allowed: true, remaining: 58 });
      expect(await inspector!.zcard(`${DEFAULT_KEY_PREFIX}${bucket}`)).to.equal(2);
      expect(fallbacks, 'the first call waited for the connection').to.equal(0);
      expect(lines).to.deep.equal([]);
      await limiter.close();
    });
  });
});
