import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { validLeadBody } from '../../support/leads.js';
import { sampled, scrape } from '../../support/metrics-text.js';
import { startTestStack, type TestStack } from '../../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';

const METRICS_TOKEN = randomBytes(32).toString('base64url');
const AUTHORIZED = { authorization: `Bearer ${METRICS_TOKEN}` };

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('observability: gateway rate-limit metrics and access to /metrics', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let stack: TestStack;
  let statuses: number[];
  const logLines: string[] = [];

  const metricsText = async () => (await scrape(`${stack.baseUrl}/metrics`, AUTHORIZED)).text;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestStack(database, {
      gatewayEnv: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, LEADFLOW_METRICS_TOKEN: METRICS_TOKEN },
      gatewayLogger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) }),
    });
    const { key } = await stack.distribution.createPublisher(2);
    statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await stack.post(key, validLeadBody())).status);
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
  });

  it('counts the requests the per-key limit refuses', async () => {
    expect(statuses).to.deep.equal([200, 200, 429]);
    const text = await metricsText();
    expect(sampled(text, 'leadflow_rate_limited_total')).to.equal(1);
    expect(
      sampled(text, 'leadflow_http_requests_total', { route: '/api/intake/{webmasterKey}', status: '429' }),
    ).to.equal(1);
  });

  it('counts every request the gateway counted alone because Redis does not answer', async () => {
    expect(sampled(await metricsText(), 'leadflow_rate_limiter_fallbacks_total')).to.equal(3);
  });

  it('never rate-limits /metrics, and logs no line per scrape', async () => {
    for (let i = 0; i < 5; i++) expect((await scrape(`${stack.baseUrl}/metrics`, AUTHORIZED)).status).to.equal(200);
    const routes = logLines.map((line) => JSON.parse(line).route);
    expect(routes).to.include('/api/intake/{webmasterKey}');
    expect(routes).to.not.include('/metrics');
  });

  it('answers 404 without the configured bearer token, as if there were no such endpoint', async () => {
    const refused: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }, { authorization: METRICS_TOKEN }];
    for (const headers of refused) {
      const { status, text } = await scrape(`${stack.baseUrl}/metrics`, headers);
      expect(status).to.equal(404);
      expect(text).to.not.include('leadflow_');
    }
  });
});
