import { setTimeout as sleep } from 'node:timers/promises';
import { buildGateway } from '@leadflow/gateway/src/app';
import { createRateLimiter, type RateLimiter } from '@leadflow/gateway/src/rate-limit/index';
import { loadGatewayConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { countBy, type IntakeReply, inPool, postLead } from '../cluster/support/http.js';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../support/distribution.js';
import { validLeadBody } from '../support/leads.js';
import { sampled, scrape } from '../support/metrics-text.js';
import { freePort } from '../support/ports.js';
import { capturingLogger, type LogLine, RedisServerProcess, skipUnlessAvailable, WARN } from '../support/redis.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';
import { waitUntil } from '../support/wait-until.js';

const FALLBACK_WARNING = 'shared rate limiter failed';
const RECOVERY_LINE = 'shared rate limiter answers again';

interface Gateway {
  app: FastifyInstance;
  baseUrl: string;
  lines: LogLine[];
}

/**
 * Two gateways listening on real ports, sharing a redis-server of this suite's own (so that it can be
 * killed), in front of one distribution service: publishers' clients talk HTTP to either of them.
 */
describe('rate limit: two listening gateways sharing one Redis', function () {
  this.timeout(120_000);
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let distribution: TestDistribution;
  let buyers: TestBuyerServer;
  const gateways: Gateway[] = [];
  const callerLimiters: RateLimiter[] = [];

  before(async function () {
    redis = new RedisServerProcess(await freePort());
    skipUnlessAvailable(this, await redis.start(), 'redis-server is not installed');
    database = await sqliteDatabase();
    distribution = await startTestDistribution(database);
    buyers = await startBuyerServer();
    buyers.behave('/buys-everything', { kind: 'accept' });
    await distribution.applyBuyers([testBuyer('buys-everything', buyers.url('/buys-everything'))]);
  });

  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.app.close()));
    await Promise.all(callerLimiters.splice(0).map((limiter) => limiter.close()));
  });

  after(async () => {
    await redis?.kill();
    await distribution?.close();
    await database?.drop();
    await buyers?.close();
  });

  /** A gateway configured as in production (REDIS_URL), or counting in a limiter the test made. */
  async function startGateway(rateLimiter?: RateLimiter): Promise<Gateway> {
    const { logger, lines } = capturingLogger();
    const config = loadGatewayConfig({
      LEADFLOW_DISTRIBUTION_ADDRESS: distribution.address,
      LEADFLOW_HTTP_HOST: '127.0.0.1',
      LEADFLOW_HTTP_PORT: '0',
      REDIS_URL: redis.url,
    });
    const app = buildGateway({ config, logger, rateLimiter });
    const baseUrl = await app.listen({ host: config.httpHost, port: config.httpPort });
    const gateway = { app, baseUrl, lines };
    gateways.push(gateway);
    return gateway;
  }

  async function startPair(windowSeconds?: number): Promise<[Gateway, Gateway]> {
    const limiter = () => {
      if (windowSeconds === undefined) return undefined;
      const made = createRateLimiter({ redisUrl: redis.url, windowSeconds, logger: pino({ level: 'silent' }) });
      callerLimiters.push(made);
      return made;
    };
    return [await startGateway(limiter()), await startGateway(limiter())];
  }

  /** Sends `count` leads of the key, alternating between the gateways, `concurrency` at a time. */
  function send(pair: Gateway[], key: string, count: number, concurrency = 1): Promise<IntakeReply[]> {
    return inPool(
      Array.from({ length: count }, (_, index) => index),
      concurrency,
      (index) => postLead(pair[index % pair.length]!.baseUrl, key, validLeadBody()),
    );
  }

  const statuses = (replies: IntakeReply[]) => countBy(replies, (reply) => reply.error ?? reply.status);

  async function countedInRedis(publisherId: string): Promise<number> {
    const inspector = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    inspector.on('error', () => {});
    try {
      await inspector.connect();
      return await inspector.zcard(`leadflow:rl:pub:${publisherId}`);
    } finally {
      inspector.disconnect();
    }
  }

  async function metric(gateway: Gateway, name: string, labels?: Record<string, string>): Promise<number | undefined> {
    return sampled((await scrape(`${gateway.baseUrl}/metrics`)).text, name, labels);
  }

  const logged = (gateway: Gateway, message: string) => gateway.lines.filter((line) => line.msg.startsWith(message));

  it('allows 60 in any rolling minute across both gateways, not 60 each: the 61st is refused', async () => {
    const pair = await startPair();
    const publisher = await distribution.createPublisher();

    const allowed = await send(pair, publisher.key, 60, 6);
    expect(statuses(allowed)).to.deep.equal({ 200: 60 });
    const left = allowed.map((reply) => reply.headers.ratelimit);
    expect(new Set(left), 'each request took its own place in one count').to.have.length(60);
    expect(await countedInRedis(publisher.id)).to.equal(60);

    for (const gateway of pair) {
      const refused = await postLead(gateway.baseUrl, publisher.key, validLeadBody());
      expect(refused.status).to.equal(429);
      expect(refused.body).to.include({ status: 'error', message: 'Rate limit exceeded' });
      expect(refused.body.retryAfter).to.be.within(1, 60);
      expect(refused.headers['retry-after']).to.equal(String(refused.body.retryAfter));
      expect(refused.headers['ratelimit-policy']).to.equal('"default";q=60;w=60');
      expect(refused.headers.ratelimit).to.equal(`"default";r=0;t=${refused.body.retryAfter}`);
    }
    expect(await countedInRedis(publisher.id), 'refusals are not counted').to.equal(60);
    expect(pair.flatMap((gateway) => logged(gateway, FALLBACK_WARNING))).to.deep.equal([]);
  });

  it("still refuses at a fixed window's boundary: a burst late in a window does not buy a second one", async () => {
    // An 8-second window stands for the minute, so that the boundary comes within the test.
    const WINDOW_MS = 8000;
    const pair = await startPair(WINDOW_MS / 1000);
    const publisher = await distribution.createPublisher();

    const first = await send(pair, publisher.key, 1);
    const firstAnsweredAt = performance.now();
    expect(statuses(first)).to.deep.equal({ 200: 1 });
    expect(first[0]!.headers['ratelimit-policy']).to.equal('"default";q=60;w=8');

    await sleep(WINDOW_MS / 2);
    const burstStartedAt = performance.now();
    const burst = await send(pair, publisher.key, 61, 6);
    expect(statuses(burst), 'the first request still counts').to.deep.equal({ 200: 59, 429: 2 });

    // A fixed window opened by the first request ends here and would let 60 more through; the rolling
    // window has freed only the first request's slot.
    await sleep(firstAnsweredAt + WINDOW_MS + 250 - performance.now());
    const atBoundary = [
      await postLead(pair[0].baseUrl, publisher.key, validLeadBody()),
      await postLead(pair[1].baseUrl, publisher.key, validLeadBody()),
    ];
    const checkedBy = performance.now();
    expect(checkedBy, 'the burst was still inside the window when the boundary was checked').to.be.below(
      burstStartedAt + WINDOW_MS,
    );
    expect(atBoundary.map((reply) => reply.status)).to.deep.equal([200, 429]);
    expect(atBoundary[1]!.headers.ratelimit).to.match(/^"default";r=0;t=[1-8]$/);
  });

  it("falls back to each gateway's own count when Redis dies mid-run, then shares again once it is back", async () => {
    const pair = await startPair();
    const publisher = await distribution.createPublisher(6);

    expect(statuses(await send(pair, publisher.key, 4))).to.deep.equal({ 200: 4 });
    expect(await countedInRedis(publisher.id)).to.equal(4);

    await redis.kill();
    // Each gateway now counts on its own, from zero: the publisher's 6 per gateway, and no answer fails.
    const duringOutage = [await send([pair[0]], publisher.key, 8), await send([pair[1]], publisher.key, 8)];
    for (const [index, gateway] of pair.entries()) {
      expect(statuses(duringOutage[index]!), `gateway ${index}`).to.deep.equal({ 200: 6, 429: 2 });
      const warnings = logged(gateway, FALLBACK_WARNING);
      expect(warnings, `gateway ${index}: one warning for the outage`).to.have.length(1);
      expect(warnings[0]!.level).to.equal(WARN);
      expect(await metric(gateway, 'leadflow_rate_limiter_fallbacks_total')).to.equal(8);
      expect(await metric(gateway, 'leadflow_rate_limited_total', { limit: 'key' })).to.equal(2);
    }
    expect(JSON.stringify(pair.flatMap((gateway) => gateway.lines))).to.not.include(publisher.key);

    await redis.start();
    const probe = await distribution.createPublisher(1000);
    for (const gateway of pair) {
      await waitUntil(
        'the gateway to count in Redis again',
        async () => {
          await postLead(gateway.baseUrl, probe.key, validLeadBody());
          return logged(gateway, RECOVERY_LINE).length > 0;
        },
        15_000,
        200,
      );
    }
    // The restarted Redis keeps nothing: one shared count of 6 starts afresh.
    expect(statuses(await send(pair, publisher.key, 8))).to.deep.equal({ 200: 6, 429: 2 });
    expect(await countedInRedis(publisher.id)).to.equal(6);
  });
});
