import { type EndpointConfig, SimulatorConfigError, type SimulatorStats } from '@leadflow/simulator';
import { expect } from 'chai';
import { LEAD, PING, SEED, send, sendJson, useSimulator } from '../../support/simulator.js';

const MARKET: EndpointConfig[] = [
  { path: '/a/ping', kind: 'ping', bid: { uniform: [5, 40] } },
  { path: '/a/post', kind: 'post', ping: '/a/ping', duplicateCheck: true },
];

describe('simulator admin API', () => {
  const simulator = useSimulator(MARKET);
  const admin = (path: string, init: RequestInit = {}) => fetch(`${simulator().url}/_simulator/${path}`, init);

  it('GET config shows the seed and the endpoints with their defaults', async () => {
    const response = await admin('config');
    expect(response.status).to.equal(200);
    const config = await response.json();
    expect(config.seed).to.equal(SEED);
    expect(config.endpoints).to.have.length(2);
    expect(config.endpoints[0]).to.include({
      path: '/a/ping',
      kind: 'ping',
      format: 'json',
      acceptRate: 1,
      pingTtlMs: 60_000,
    });
  });

  it('PUT config replaces the endpoints, from JSON or YAML', async () => {
    const json = await admin('config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoints: [{ path: '/b/post', kind: 'direct_post', price: { fixed: 3 } }] }),
    });
    expect(json.status).to.equal(200);
    expect((await json.json()).endpoints.map((endpoint: EndpointConfig) => endpoint.path)).to.deep.equal(['/b/post']);
    expect((await sendJson(simulator(), '/b/post', LEAD)).price).to.equal('3.00');
    expect((await send(simulator(), '/a/post', LEAD)).status).to.equal(404);

    const yaml = await admin('config', {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml' },
      body: 'endpoints:\n  - path: /c/post\n    kind: direct_post\n    format: text\n    price: { fixed: 4 }\n',
    });
    expect(yaml.status).to.equal(200);
    expect((await send(simulator(), '/c/post', LEAD)).text).to.match(/^ACCEPTED\|4\.00\|/);
  });

  it('PUT config refuses a bad config with every issue, and keeps the old one', async () => {
    const response = await admin('config', {
      method: 'PUT',
      body: JSON.stringify({ endpoints: [{ path: '/x', kind: 'direct_post', acceptRate: 2 }] }),
    });
    expect(response.status).to.equal(400);
    expect(await response.json()).to.deep.equal({
      status: 'error',
      message: 'invalid simulator config',
      issues: ['endpoints[0].acceptRate: must be from 0 to 1', 'endpoints[0].price: must be an object'],
    });
    expect((await admin('config', { method: 'PUT', body: '{"endpoints": [' })).status).to.equal(400);
    expect((await admin('config', { method: 'PUT', body: '{"seed": 1, "endpoints": []}' })).status).to.equal(400);
    expect((await sendJson(simulator(), '/a/ping', PING)).status).to.equal('bid');
  });

  it('GET stats reports what the endpoints saw', async () => {
    await send(simulator(), '/a/ping', PING);
    await send(simulator(), '/a/post', LEAD);
    await send(simulator(), '/nowhere', LEAD);
    const stats: SimulatorStats = await (await admin('stats')).json();
    expect(stats).to.deep.equal(simulator().stats());
    expect(stats.endpoints['/a/ping']).to.include({ pings: 1, bids: 1 });
    expect(stats.endpoints['/a/post']).to.include({ posts: 1, accepted: 1 });
    expect(stats.unknownPaths).to.equal(1);
  });

  it('POST reset forgets counters, bids and applicants, and restarts the random streams', async () => {
    const bidsOf = async () => {
      const bids: unknown[] = [];
      for (let i = 0; i < 5; i += 1)
        bids.push((await sendJson(simulator(), '/a/ping', { ...PING, leadId: `lead-${i}` })).bid);
      return bids;
    };
    const before = await bidsOf();
    await sendJson(simulator(), '/a/post', { ...LEAD, leadId: 'lead-0' });
    await sendJson(simulator(), '/a/ping', { ...PING, leadId: 'kept?' });

    const response = await admin('reset', { method: 'POST' });
    expect(response.status).to.equal(204);
    expect(simulator().stats().endpoints['/a/ping']).to.include({ pings: 0, bids: 0, bidCents: 0 });
    expect(await sendJson(simulator(), '/a/post', { ...LEAD, leadId: 'kept?' })).to.deep.equal({
      status: 'rejected',
      reason: 'no matching ping',
    });

    simulator().reset();
    expect(await bidsOf()).to.deep.equal(before);
    // The applicant of lead-0 was forgotten: no duplicate.
    expect((await sendJson(simulator(), '/a/post', { ...LEAD, leadId: 'lead-0' })).status).to.equal('accepted');
  });

  it('answers 404 for an unknown admin action', async () => {
    expect((await admin('config', { method: 'DELETE' })).status).to.equal(404);
    expect((await admin('nothing')).status).to.equal(404);
  });

  it('configure() in process validates too', () => {
    expect(() => simulator().configure([{ path: '/a', kind: 'post', ping: '/none' }])).to.throw(SimulatorConfigError);
    simulator().configure([{ path: '/d/post', kind: 'direct_post', price: { fixed: 1 } }]);
    expect(
      simulator()
        .config()
        .map((endpoint) => endpoint.path),
    ).to.deep.equal(['/d/post']);
  });
});
