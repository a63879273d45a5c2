import { randomUUID } from 'node:crypto';
import { FallbackRateLimiter } from '@leadflow/gateway/src/rate-limit/fallback-rate-limiter';
import { LocalRateLimiter } from '@leadflow/gateway/src/rate-limit/local-rate-limiter';
import type { RateLimitDecision } from '@leadflow/gateway/src/rate-limit/rate-limiter';
import { createRedisClient } from '@leadflow/gateway/src/rate-limit/redis-client';
import { RedisRateLimiter } from '@leadflow/gateway/src/rate-limit/redis-rate-limiter';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { freePort } from '../../support/ports.js';
import {
  capturingLogger,
  INFO,
  type LogLine,
  RedisServerProcess,
  skipUnlessAvailable,
  WARN,
} from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';

async function timed(call: () => Promise<RateLimitDecision>): Promise<{ decision: RateLimitDecision; ms: number }> {
  const started = performance.now();
  const decision = await call();
  return { decision, ms: performance.now() - started };
}

describe('FallbackRateLimiter (own redis-server, killed and restarted)', () => {
  const keyPrefix = `leadflow:test:rl:${randomUUID()}:`;
  // Looks like a publisher key on purpose: it must not reach the logs.
  const bucket = `lf_live_${randomUUID()}`;
  let server: RedisServerProcess;
  let inspector: Redis;
  let limiter: FallbackRateLimiter;
  let fallbacks = 0;
  let lines: LogLine[];

  before(async function () {
    server = new RedisServerProcess(await freePort());
    skipUnlessAvailable(this, await server.start(), 'redis-server is not installed');
    inspector = new Redis(server.url, { retryStrategy: () => 100 });
    inspector.on('error', () => {});

    const redis = createRedisClient(server.url);
    await new Promise((resolve) => redis.once('ready', resolve));
    const captured = capturingLogger();
    lines = captured.lines;
    limiter = new FallbackRateLimiter({
      shared: new RedisRateLimiter({ redis, keyPrefix }),
      local: new LocalRateLimiter(),
      logger: captured.logger,
      onFallback: () => (fallbacks += 1),
      retryIntervalMs: 100,
    });
  });

  after(async () => {
    await server?.kill();
    await limiter?.close();
    inspector?.disconnect();
  });

  it('counts in Redis, answers locally while Redis is dead, and returns to Redis by itself', async () => {
    const key = `${keyPrefix}${bucket}`;

    for (let i = 0; i < 3; i += 1) expect(await limiter.consume(bucket, 5)).to.include({ allowed: true });
    expect(fallbacks).to.equal(0);
    expect(await inspector.zcard(key), 'counted in Redis').to.equal(3);
    expect(lines).to.deep.equal([]);

    await server.kill();
    const duringOutage: RateLimitDecision[] = [];
    for (let i = 0; i < 20; i += 1) {
      const { decision, ms } = await timed(() => limiter.consume(bucket, 5));
      expect(ms, `call ${i} answered quickly`).to.be.below(500);
      duringOutage.push(decision);
    }
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => limiter.consume(`${bucket}-other`, 5)));
    expect(
      duringOutage.filter((decision) => decision.allowed),
      'the local count starts empty',
    ).to.have.length(5);
    expect(concurrent.filter((decision) => decision.allowed)).to.have.length(5);
    expect(fallbacks).to.equal(40);
    const warnings = lines.filter((line) => line.level === WARN);
    expect(warnings, 'one warning for the outage, not one per request').to.have.length(1);
    expect(warnings[0]!.reason).to.be.a('string').and.not.equal('');

    await server.start();
    await waitUntil(
      'the limiter to return to Redis',
      async () => {
        await limiter.consume(`${bucket}-probe`, 1000);
        return lines.some((line) => line.level === INFO);
      },
      10_000,
      50,
    );
    const fallbacksBeforeReturn = fallbacks;
    for (let i = 0; i < 3; i += 1) await limiter.consume(bucket, 5);
    expect(fallbacks, 'no more local answers').to.equal(fallbacksBeforeReturn);
    expect(await inspector.zcard(key), 'counted in the restarted Redis').to.equal(3);

    expect(lines.filter((line) => line.level === WARN)).to.have.length(1);
    expect(JSON.stringify(lines)).to.not.include(bucket);
  });
});
