import { buildGateway } from '@leadflow/gateway/src/app';
import { createRateLimiter } from '@leadflow/gateway/src/rate-limit/index';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { postLead, testConfig, testGateway, testKey } from '../../support/gateway.js';
import { ScriptedDistribution } from '../../support/scripted-distribution.js';

describe('gateway: keys and rate limit', () => {
  const distribution = new ScriptedDistribution();
  let app: FastifyInstance;

  before(async () => {
    await distribution.start();
    distribution.keys.set(testKey('old-key'), { publisherId: 'pub-rotating', rateLimitPerMinute: 3 });
    distribution.keys.set(testKey('new-key'), { publisherId: 'pub-rotating', rateLimitPerMinute: 3 });
    distribution.keys.set(testKey('default-limit'), { publisherId: 'pub-default', rateLimitPerMinute: 0 });
  });
  after(() => distribution.stop());
  beforeEach(() => {
    distribution.reset();
    app = testGateway(distribution.address, { defaultRateLimitPerMinute: 2, authFailureLimit: 2 });
  });
  afterEach(() => app.close());

  it('answers 401 to an unknown key without submitting the lead', async () => {
    const response = await postLead(app, testKey('unknown'));
    expect(response.statusCode).to.equal(401);
    expect(response.json()).to.deep.equal({ status: 'error', message: 'Unknown or revoked webmaster key' });
    expect(response.headers['ratelimit-policy']).to.equal('"auth-failures";q=2;w=60');
    expect(response.headers.ratelimit).to.equal('"auth-failures";r=1;t=0');
    expect(distribution.submitCalls).to.have.length(0);
  });

  it("sets the publisher's limit in the headers of every answer", async () => {
    const response = await postLead(app, testKey('old-key'));
    expect(response.statusCode).to.equal(200);
    expect(response.headers['ratelimit-policy']).to.equal('"default";q=3;w=60');
    expect(response.headers.ratelimit).to.equal('"default";r=2;t=0');
    expect(response.headers).to.not.have.property('retry-after');
  });

  it('answers 429 with Retry-After and retryAfter once the limit is used up', async () => {
    for (let i = 0; i < 3; i += 1) expect((await postLead(app, testKey('old-key'))).statusCode).to.equal(200);
    const response = await postLead(app, testKey('old-key'));
    expect(response.statusCode).to.equal(429);
    const body = response.json();
    expect(body).to.include({ status: 'error', message: 'Rate limit exceeded' });
    expect(body.retryAfter).to.be.a('number').and.to.be.within(1, 60);
    expect(response.headers['retry-after']).to.equal(String(body.retryAfter));
    expect(response.headers.ratelimit).to.equal(`"default";r=0;t=${body.retryAfter}`);
    expect(distribution.submitCalls).to.have.length(3);
  });

  it("counts both of a publisher's keys in one bucket", async () => {
    await postLead(app, testKey('old-key'));
    await postLead(app, testKey('new-key'));
    await postLead(app, testKey('old-key'));
    expect((await postLead(app, testKey('new-key'))).statusCode).to.equal(429);
  });

  it('counts malformed requests too', async () => {
    expect((await postLead(app, testKey('old-key'), '{not json')).statusCode).to.equal(400);
    expect((await postLead(app, testKey('old-key'), '[]')).statusCode).to.equal(400);
    expect((await postLead(app, testKey('old-key'), 'x', 'text/plain')).statusCode).to.equal(415);
    expect((await postLead(app, testKey('old-key'))).statusCode).to.equal(429);
  });

  it('uses the default limit for a publisher without one', async () => {
    const response = await postLead(app, testKey('default-limit'));
    expect(response.headers['ratelimit-policy']).to.equal('"default";q=2;w=60');
  });

  it("limits a client's failed authentications, whatever keys it tries, then answers 429 instead of 401", async () => {
    expect((await postLead(app, testKey('guess'))).statusCode).to.equal(401);
    expect((await postLead(app, testKey('other-guess'))).statusCode).to.equal(401);
    const refused = await postLead(app, testKey('third-guess'));
    expect(refused.statusCode).to.equal(429);
    expect(refused.headers.ratelimit).to.match(/^"auth-failures";r=0;t=\d+$/);
    expect(distribution.resolveCalls).to.deep.equal([testKey('guess'), testKey('other-guess')]);
  });

  it('resolves a key once and serves the next requests from the cache', async () => {
    await postLead(app, testKey('old-key'));
    await postLead(app, testKey('old-key'));
    await postLead(app, testKey('unknown'));
    await postLead(app, testKey('unknown'));
    expect(distribution.resolveCalls).to.deep.equal([testKey('old-key'), testKey('unknown')]);
  });

  it("counts in a caller's limiter shared by two gateways, and leaves it open on close", async () => {
    const logger = pino({ level: 'silent' });
    const rateLimiter = createRateLimiter({ logger });
    const config = testConfig(distribution.address);
    const [first, second] = [1, 2].map(() => buildGateway({ config, logger, rateLimiter }));
    try {
      expect((await postLead(first!, testKey('old-key'))).statusCode).to.equal(200);
      expect((await postLead(second!, testKey('old-key'))).statusCode).to.equal(200);
      await first!.close();
      expect((await postLead(second!, testKey('old-key'))).statusCode).to.equal(200);
      expect((await postLead(second!, testKey('old-key'))).statusCode).to.equal(429);
    } finally {
      await Promise.all([first!.close(), second!.close()]);
      await rateLimiter.close();
    }
  });

  it('answers 401 to a key longer than any route parameter, without echoing it', async () => {
    const key = `lf_test_${'k'.repeat(300)}`;
    const response = await postLead(app, key);
    expect(response.statusCode).to.equal(401);
    expect(response.json()).to.deep.equal({ status: 'error', message: 'Unknown or revoked webmaster key' });
  });

  it('answers 400 to a malformed percent-encoding in the key, without echoing it', async () => {
    const response = await postLead(app, 'lf_test_%zz_secret');
    expect(response.statusCode).to.equal(400);
    expect(response.body).to.not.include('secret');
    expect(response.json()).to.include({ status: 'error' });
  });
});

describe('gateway: distribution service down', () => {
  it('answers 503 with Retry-After when the key cannot be resolved', async () => {
    const stopped = new ScriptedDistribution();
    await stopped.start();
    stopped.stop();
    const app = testGateway(stopped.address);
    try {
      const response = await postLead(app, testKey('any'));
      expect(response.statusCode).to.equal(503);
      expect(response.headers['retry-after']).to.equal('1');
      expect(response.json()).to.deep.equal({
        status: 'error',
        message: 'Service temporarily unavailable; retry with backoff',
      });
    } finally {
      await app.close();
    }
  });

  it('answers 503 when the service goes away after the key was resolved', async () => {
    const distribution = new ScriptedDistribution();
    await distribution.start();
    distribution.keys.set(testKey('key'), { publisherId: 'pub-1', rateLimitPerMinute: 60 });
    const app = testGateway(distribution.address);
    try {
      expect((await postLead(app, testKey('key'))).statusCode).to.equal(200);
      distribution.stop();
      // A call sent while the server is tearing the connection down is CANCELLED (a 500); wait until the client has seen it go.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await postLead(app, testKey('key'));
      expect(response.statusCode).to.equal(503);
      expect(response.headers['retry-after']).to.equal('1');
      expect(response.headers).to.have.property('ratelimit');
    } finally {
      await app.close();
    }
  });
});
