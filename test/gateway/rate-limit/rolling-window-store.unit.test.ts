import fastifyRateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { LocalRateLimiter } from '@leadflow/gateway/src/rate-limit/local-rate-limiter';
import type { RateLimiter } from '@leadflow/gateway/src/rate-limit/rate-limiter';
import { rollingWindowStore, storeCount } from '@leadflow/gateway/src/rate-limit/rolling-window-store';
import { expect } from 'chai';
import { type FastifyInstance, fastify } from 'fastify';

const SECOND = 1000;

describe('storeCount', () => {
  it('reports an allowed request as the count so far, with no wait while requests are left', () => {
    expect(storeCount({ allowed: true, limit: 60, remaining: 59, resetSeconds: 0, windowSeconds: 60 })).to.deep.equal({
      current: 1,
      ttl: 0,
    });
  });

  it('reports the last allowed request as the full count, with the wait for a free slot', () => {
    expect(storeCount({ allowed: true, limit: 60, remaining: 0, resetSeconds: 42, windowSeconds: 60 })).to.deep.equal({
      current: 60,
      ttl: 42_000,
    });
  });

  it('reports a refusal as one over the limit, which is how the plugin recognises it', () => {
    expect(storeCount({ allowed: false, limit: 60, remaining: 0, resetSeconds: 17, windowSeconds: 60 })).to.deep.equal({
      current: 61,
      ttl: 17_000,
    });
  });
});

describe('rollingWindowStore under @fastify/rate-limit', () => {
  let clock = 0;
  let limiter: LocalRateLimiter;
  let app: FastifyInstance | undefined;

  beforeEach(() => {
    clock = 0;
    limiter = new LocalRateLimiter({ now: () => clock });
  });
  afterEach(() => app?.close());

  async function limitedApp(route: RateLimitOptions = {}, store: RateLimiter = limiter): Promise<FastifyInstance> {
    app = fastify();
    await app.register(fastifyRateLimit, {
      global: false,
      store: rollingWindowStore(store),
      timeWindow: 60 * SECOND,
      max: 60,
      enableDraftSpec: true,
    });
    app.get('/', { config: { rateLimit: route } }, async () => 'ok');
    await app.ready();
    return app;
  }

  async function send(times: number, headers: Record<string, string> = {}): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < times; i += 1) statuses.push((await app!.inject({ url: '/', headers })).statusCode);
    return statuses;
  }

  it("refuses at a fixed window's boundary what is still in the rolling window", async () => {
    await limitedApp();
    expect(await send(1)).to.deep.equal([200]);
    clock = 30 * SECOND;
    expect(await send(60)).to.deep.equal([...Array(59).fill(200), 429]);
    // A fixed window opened by the first request would start afresh now and let 60 through.
    clock = 60.5 * SECOND;
    expect(await send(1), "the first request's slot has freed").to.deep.equal([200]);
    const refused = await app!.inject({ url: '/' });
    expect(refused.statusCode).to.equal(429);
    expect(refused.headers).to.include({ 'ratelimit-remaining': '0', 'ratelimit-reset': '30', 'retry-after': '30' });
  });

  it("gives the plugin the limiter's figures for its headers", async () => {
    await limitedApp();
    const first = await app!.inject({ url: '/' });
    expect(first.headers).to.include({ 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '0' });
    clock = 10 * SECOND;
    await send(58);
    const last = await app!.inject({ url: '/' });
    expect(last.statusCode).to.equal(200);
    expect(last.headers, 'the first request leaves the window at 60 s').to.include({
      'ratelimit-remaining': '0',
      'ratelimit-reset': '50',
    });
  });

  it("counts per the route's key, up to the route's max", async () => {
    await limitedApp({ keyGenerator: (request) => String(request.headers['x-tenant']), max: () => 2 });
    expect(await send(3, { 'x-tenant': 'a' })).to.deep.equal([200, 200, 429]);
    expect(await send(3, { 'x-tenant': 'b' })).to.deep.equal([200, 200, 429]);
  });

  it("refuses, at registration, a route window other than the limiter's", async () => {
    app = fastify();
    await app.register(fastifyRateLimit, {
      global: false,
      store: rollingWindowStore(limiter),
      timeWindow: 60 * SECOND,
    });
    expect(() => app!.get('/', { config: { rateLimit: { timeWindow: 10 * SECOND } } }, async () => 'ok')).to.throw(
      RangeError,
      'timeWindow 10000',
    );
  });

  it("passes the limiter's failure on to the plugin instead of leaving the request waiting", async () => {
    const failing: RateLimiter = {
      windowSeconds: 60,
      consume: () => Promise.reject(new Error('limiter failed')),
      close: async () => {},
    };
    await limitedApp({}, failing);
    expect(await send(1)).to.deep.equal([500]);
  });
});
