import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import type { GatewayConfig } from '@leadflow/service-kit/config';
import type { Logger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { reportFigures } from '../../support/figures.js';
import { memoryLogger, testGateway, testKey, VALID_LEAD } from '../../support/gateway.js';
import { REDIS_URL, requireSharedRedis } from '../../support/redis.js';
import { ScriptedDistribution } from '../../support/scripted-distribution.js';

const LIVE_KEY = testKey('flood-live');
const LIMIT = 20;
const FLOOD = 300;

/** A key of the issued shape that nobody holds. */
function randomKey(): string {
  return `lfpk_${randomBytes(32).toString('base64url')}`;
}

interface Answer {
  status: number;
  headers: Headers;
  body: { status: string; message?: string; retryAfter?: number };
}

describe('gateway: bad-key floods, against a listening gateway', function () {
  this.timeout(60_000);
  const distribution = new ScriptedDistribution();
  let app: FastifyInstance;
  let base: string;

  async function listen(overrides: Partial<GatewayConfig> = {}, logger?: Logger): Promise<void> {
    app = testGateway(distribution.address, { authFailureLimit: LIMIT, ...overrides }, logger);
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }

  async function post(key: string, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${base}/api/intake/${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(VALID_LEAD),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  async function flood(keys: () => string, headers: Record<string, string> = {}): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (let i = 0; i < FLOOD; i += 1) answers.push(await post(keys(), headers));
    return answers;
  }

  const statusCounts = (answers: Answer[]) => {
    const counts: Record<number, number> = {};
    for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  };

  before(async () => {
    await distribution.start();
    distribution.keys.set(LIVE_KEY, { publisherId: 'pub-live', rateLimitPerMinute: 1000 });
  });
  after(() => distribution.stop());
  beforeEach(() => distribution.reset());
  afterEach(() => app?.close());

  it('refuses keys of an impossible shape without asking the distribution service', async () => {
    await listen({ authFailureLimit: 1000 });
    const impossible = [
      'lf_test_key',
      '',
      'x',
      `lfpk_${'A'.repeat(42)}`,
      `lfpk_${'A'.repeat(44)}`,
      `lfpk_${'A'.repeat(42)}B`, // the 43rd character of 256 bits is one of 16
      `lfpk_${'A'.repeat(42)}=`,
      `lfpk_${'+'.repeat(42)}A`,
      `LFPK_${'A'.repeat(43)}`,
      `lfpk_${'A'.repeat(42)}\u00c5`,
    ];
    for (const key of impossible) {
      const answer = await post(key);
      expect(answer.status, JSON.stringify(key)).to.be.oneOf([401, 404]);
    }
    expect(distribution.resolveCalls).to.deep.equal([]);
    expect((await post(LIVE_KEY)).status).to.equal(200);
    expect(distribution.resolveCalls).to.deep.equal([LIVE_KEY]);
  });

  it(`lets one address fail ${LIMIT} times a minute: a flood of random keys costs ${LIMIT} look-ups, not ${FLOOD}`, async () => {
    await listen();
    const answers = await flood(randomKey);
    reportFigures(
      `      ${FLOOD} random well-formed keys from one address: ${distribution.resolveCalls.length} look-ups, answers ${JSON.stringify(statusCounts(answers))}`,
    );
    expect(distribution.resolveCalls).to.have.length(LIMIT);
    expect(answers.slice(0, LIMIT).map((answer) => answer.status)).to.deep.equal(Array(LIMIT).fill(401));
    expect(answers.slice(LIMIT).every((answer) => answer.status === 429)).to.equal(true);
    const refused = answers[LIMIT]!;
    expect(refused.body).to.include({ status: 'error', message: 'Rate limit exceeded' });
    expect(refused.body.retryAfter).to.be.within(1, 60);
    expect(refused.headers.get('retry-after')).to.equal(String(refused.body.retryAfter));
    expect(answers[0]!.headers.get('ratelimit-policy')).to.equal(`"auth-failures";q=${LIMIT};w=60`);
    expect(answers[0]!.headers.get('ratelimit')).to.equal(`"auth-failures";r=${LIMIT - 1};t=0`);
  });

  it('counts keys of an impossible shape as failures too', async () => {
    await listen();
    const answers = await flood(() => `lfpk_${randomBytes(8).toString('hex')}`);
    reportFigures(
      `      ${FLOOD} malformed keys from one address: ${distribution.resolveCalls.length} look-ups, answers ${JSON.stringify(statusCounts(answers))}`,
    );
    expect(distribution.resolveCalls).to.have.length(0);
    expect(statusCounts(answers)).to.deep.equal({ 401: LIMIT, 429: FLOOD - LIMIT });
  });

  it('still serves a live key the gateway knows from a locked-out address, and other addresses meanwhile', async () => {
    await listen({ trustProxy: ['127.0.0.1'] });
    const attacker = { 'x-forwarded-for': '198.51.100.7' };
    const neighbour = { 'x-forwarded-for': '198.51.100.8' };
    await flood(randomKey, attacker);
    const lookups = distribution.resolveCalls.length;
    expect((await post(LIVE_KEY, attacker)).status, 'a live key the gateway has not seen lately').to.equal(429);
    expect((await post(LIVE_KEY, neighbour)).status).to.equal(200);
    expect((await post(LIVE_KEY, attacker)).status, 'a live key the gateway knows').to.equal(200);
    expect((await post(randomKey(), attacker)).status).to.equal(429);
    expect((await post(randomKey(), neighbour)).status).to.equal(401);
    expect(distribution.resolveCalls.length - lookups, "look-ups: the live key once, the neighbour's guess").to.equal(
      2,
    );
  });

  it('takes the client address from X-Forwarded-For only when the peer is a trusted proxy, and says so once', async () => {
    const { logger, lines } = memoryLogger();
    await listen({}, logger);
    const spoofed = (i: number) => ({ 'x-forwarded-for': `203.0.113.${i % 250}` });
    const answers: Answer[] = [];
    for (let i = 0; i < LIMIT + 5; i += 1) answers.push(await post(randomKey(), spoofed(i)));
    expect(statusCounts(answers)).to.deep.equal({ 401: LIMIT, 429: 5 });
    const warnings = lines.map((line) => JSON.parse(line)).filter((line) => line.msg.includes('LEADFLOW_TRUST_PROXY'));
    expect(warnings).to.have.length(1);
    expect(warnings[0].level).to.equal(40);
  });

  it('limits an IPv6 client by its /56, so rotating addresses inside it does not escape', async () => {
    await listen({ trustProxy: ['127.0.0.1'] });
    const answers: Answer[] = [];
    for (let i = 0; i < LIMIT + 5; i += 1) {
      answers.push(
        await post(randomKey(), { 'x-forwarded-for': `2001:db8:77:${(i % 256).toString(16)}::${i.toString(16)}` }),
      );
    }
    expect(statusCounts(answers)).to.deep.equal({ 401: LIMIT, 429: 5 });
    expect((await post(randomKey(), { 'x-forwarded-for': '2001:db8:77:100::1' })).status).to.equal(401);
  });
});

describe('gateway: failed authentications counted across gateways', function () {
  this.timeout(60_000);
  const distribution = new ScriptedDistribution();
  const gateways: FastifyInstance[] = [];

  before(async function () {
    await requireSharedRedis(this);
    await distribution.start();
  });
  after(() => distribution.stop());
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    distribution.reset();
  });

  function gateway(redisUrl: string): FastifyInstance {
    const app = testGateway(distribution.address, { redisUrl, authFailureLimit: LIMIT, trustProxy: ['127.0.0.1'] });
    gateways.push(app);
    return app;
  }

  async function statusOf(app: FastifyInstance, client: string): Promise<number> {
    const response = await app.inject({
      method: 'POST',
      url: `/api/intake/${randomKey()}`,
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      payload: JSON.stringify(VALID_LEAD),
    });
    return response.statusCode;
  }

  /** An address of its own for each run: the shared Redis may hold other runs' counts. */
  const freshClient = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(1).toString('hex')}00::1`;

  it('shares one allowance per address through Redis', async () => {
    const pair = [gateway(REDIS_URL), gateway(REDIS_URL)];
    const client = freshClient();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) statuses.push(await statusOf(pair[i % 2]!, client));
    expect(statuses.filter((status) => status === 401)).to.have.length(LIMIT);
    expect(statuses.slice(LIMIT).every((status) => status === 429)).to.equal(true);
    expect(
      distribution.resolveCalls.length,
      'look-ups: the allowance, and one for the gateway that learns of the lockout last',
    ).to.be.at.most(LIMIT + 1);
  });

  it('still limits each gateway on its own while Redis does not answer', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const deadPort = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const alone = gateway(`redis://127.0.0.1:${deadPort}`);
    const client = freshClient();
    const oneClient: number[] = [];
    for (let i = 0; i < LIMIT + 10; i += 1) oneClient.push(await statusOf(alone, client));
    expect(oneClient.filter((status) => status === 401)).to.have.length(LIMIT);
    expect(oneClient.slice(LIMIT).every((status) => status === 429)).to.equal(true);
    const [fallbacks] = (await alone.metrics.rateLimiterFallbacks.get()).values;
    expect(
      fallbacks?.value,
      'each failure counted by the local fallback; the lockout then costs no count at all',
    ).to.equal(LIMIT);
  });
});
