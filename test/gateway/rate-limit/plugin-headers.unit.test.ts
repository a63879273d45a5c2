import fastifyRateLimit from '@fastify/rate-limit';
import { LocalRateLimiter } from '@leadflow/gateway/src/rate-limit/local-rate-limiter';
import { foldPluginHeaders } from '@leadflow/gateway/src/rate-limit/plugin-headers';
import { rollingWindowStore } from '@leadflow/gateway/src/rate-limit/rolling-window-store';
import { expect } from 'chai';
import { type FastifyInstance, fastify } from 'fastify';

describe('foldPluginHeaders', () => {
  let clock = 0;
  let app: FastifyInstance;

  beforeEach(async () => {
    clock = 0;
    app = fastify();
    await app.register(fastifyRateLimit, {
      global: false,
      store: rollingWindowStore(new LocalRateLimiter({ now: () => clock })),
      timeWindow: 60_000,
      enableDraftSpec: true,
    });
    const onSend = foldPluginHeaders(60);
    app.get('/limited', { config: { rateLimit: { max: 2 } }, onSend }, async () => 'ok');
    app.get(
      '/refused-first',
      {
        onRequest: async () => {
          throw Object.assign(new Error('refused before the limit'), { statusCode: 401 });
        },
        config: { rateLimit: { max: 2 } },
        onSend,
      },
      async () => 'ok',
    );
    await app.ready();
  });
  afterEach(() => app.close());

  const pluginFields = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

  it("writes the plugin's figures as the two documented fields, and drops its own", async () => {
    const response = await app.inject({ url: '/limited' });
    expect(response.statusCode).to.equal(200);
    expect(response.headers['ratelimit-policy']).to.equal('"default";q=2;w=60');
    expect(response.headers.ratelimit).to.equal('"default";r=1;t=0');
    expect(response.headers).to.not.have.any.keys(pluginFields);
  });

  it('folds them on a refusal too, beside Retry-After', async () => {
    await app.inject({ url: '/limited' });
    clock = 15_000;
    await app.inject({ url: '/limited' });
    const refused = await app.inject({ url: '/limited' });
    expect(refused.statusCode).to.equal(429);
    expect(refused.headers['ratelimit-policy']).to.equal('"default";q=2;w=60');
    expect(refused.headers.ratelimit).to.equal('"default";r=0;t=45');
    expect(refused.headers['retry-after']).to.equal('45');
    expect(refused.headers).to.not.have.any.keys(pluginFields);
  });

  it('leaves an answer given before the plugin counted as it is', async () => {
    const response = await app.inject({ url: '/refused-first' });
    expect(response.statusCode).to.equal(401);
    expect(response.headers).to.not.have.any.keys(['ratelimit-policy', 'ratelimit', ...pluginFields]);
  });
});
