import { buildGateway } from '@leadflow/gateway/src/app';
import { loadGatewayConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../support/distribution.js';
import { validLeadBody } from '../support/leads.js';
import { freePort } from '../support/ports.js';
import { REDIS_URL, RedisServerProcess, requireSharedRedis, skipUnlessAvailable } from '../support/redis.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';

function gatewayWithRedis(distribution: TestDistribution, redisUrl: string): FastifyInstance {
  const config = loadGatewayConfig({
    LEADFLOW_DISTRIBUTION_ADDRESS: distribution.address,
    LEADFLOW_LOG_LEVEL: 'silent',
    REDIS_URL: redisUrl,
  });
  return buildGateway({ config, logger: pino({ level: 'silent' }) });
}

async function post(gateway: FastifyInstance, key: string): Promise<number> {
  const response = await gateway.inject({
    method: 'POST',
    url: `/api/intake/${key}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(validLeadBody()),
  });
  return response.statusCode;
}

describe('rate limit shared through Redis by the gateways', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let distribution: TestDistribution;

  before(async function () {
    await requireSharedRedis(this);
    database = await sqliteDatabase();
    distribution = await startTestDistribution(database);
    buyers = await startBuyerServer();
    buyers.behave('/buys-everything', { kind: 'accept' });
    await distribution.applyBuyers([testBuyer('buys-everything', buyers.url('/buys-everything'))]);
  });
  after(async () => {
    await distribution?.close();
    await database?.drop();
    await buyers?.close();
  });

  it('holds a key to 60 in total across two gateways, not 60 each', async () => {
    const gateways = [gatewayWithRedis(distribution, REDIS_URL), gatewayWithRedis(distribution, REDIS_URL)];
    try {
      const { key } = await distribution.createPublisher();
      const codes: number[] = [];
      for (let i = 0; i < 70; i++) codes.push(await post(gateways[i % 2]!, key));
      expect(codes.filter((code) => code === 200)).to.have.length(60);
      expect(codes.slice(60)).to.deep.equal(Array(10).fill(429));
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    }
  });

  it('keeps answering, from its own count, when Redis dies', async function () {
    const redis = new RedisServerProcess(await freePort());
    skipUnlessAvailable(this, await redis.start(), 'redis-server is not installed');
    const gateway = gatewayWithRedis(distribution, redis.url);
    try {
      const { key } = await distribution.createPublisher(5);
      expect(await post(gateway, key)).to.equal(200);
      await redis.kill();
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) codes.push(await post(gateway, key));
      expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
    } finally {
      await gateway.close();
      await redis.kill();
    }
  });
});
