import { type EndpointConfig, type FaultKind, startSimulator } from '@leadflow/simulator';
import { expect } from 'chai';
import { LEAD, PING, rawPost, SEED, send, sendJson, useSimulator } from '../../support/simulator.js';

const always = (kind: FaultKind, format: 'json' | 'xml' | 'text' = 'json'): EndpointConfig => ({
  path: `/${kind}/${format}`,
  kind: 'direct_post',
  format,
  price: { fixed: 12.5 },
  errors: { [kind]: 1 },
});

describe('simulator faults', () => {
  const simulator = useSimulator([
    always('status500'),
    always('status503'),
    always('hang'),
    always('reset'),
    always('truncated'),
    always('truncated', 'xml'),
    always('html'),
    always('garbage'),
    always('garbage', 'text'),
    { path: '/mix', kind: 'direct_post', price: { fixed: 1 }, errors: { status500: 0.2, status503: 0.1 } },
    { path: '/broken/ping', kind: 'ping', bid: { fixed: 5 }, errors: { status500: 1 } },
    { path: '/broken/post', kind: 'post', ping: '/broken/ping' },
  ]);
  const url = (path: string) => simulator().url + path;

  it('answers 500 and 503', async () => {
    const internal = await send(simulator(), '/status500/json', LEAD);
    expect(internal.status).to.equal(500);
    const unavailable = await send(simulator(), '/status503/json', LEAD);
    expect(unavailable.status).to.equal(503);
    expect(unavailable.headers.get('retry-after')).to.equal('30');
    expect(simulator().stats().endpoints['/status500/json'].errors.status500).to.equal(1);
  });

  it('hangs until the client gives up', async () => {
    const reply = await rawPost(url('/hang/json'), LEAD, 300);
    expect(reply.error).to.equal('TIMEOUT');
    expect(reply.status).to.equal(undefined);
    const aborted = await fetch(url('/hang/json'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(LEAD),
      signal: AbortSignal.timeout(200),
    }).catch((error: Error) => error);
    expect(aborted).to.be.instanceOf(Error).with.property('name', 'TimeoutError');
    expect(simulator().stats().endpoints['/hang/json'].errors.hang).to.equal(2);
  });

  it('resets the connection half-way through a reply', async () => {
    const reply = await rawPost(url('/reset/json'), LEAD);
    expect(reply.status).to.equal(200);
    // Usually ECONNRESET; a client may also read the reset as an early end of the body.
    expect(reply.error).to.not.equal(undefined);
    expect(Number(reply.headers['content-length'])).to.be.above(reply.body.length);
    expect(simulator().stats().endpoints['/reset/json'].errors.reset).to.equal(1);
  });

  it('sends half a reply under a Content-Length that promises all of it', async () => {
    for (const path of ['/truncated/json', '/truncated/xml']) {
      const reply = await rawPost(url(path), LEAD);
      expect(reply.status).to.equal(200);
      expect(reply.error).to.not.equal(undefined);
      const promised = Number(reply.headers['content-length']);
      expect(reply.body.length).to.equal(Math.floor(promised / 2));
    }
    const json = await rawPost(url('/truncated/json'), LEAD);
    // The half that arrives looks like a sale: only the Content-Length tells it is not one.
    expect(json.body.toString()).to.match(/^\{"status":"accepted"/);
    expect(() => JSON.parse(json.body.toString())).to.throw(SyntaxError);
    const failed = await fetch(url('/truncated/json'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(LEAD),
    })
      .then((response) => response.text())
      .catch((error: Error) => error);
    expect(failed).to.be.instanceOf(Error);
  });

  it('answers 200 with an HTML page', async () => {
    const reply = await send(simulator(), '/html/json', LEAD);
    expect(reply.status).to.equal(200);
    expect(reply.contentType).to.equal('text/html; charset=utf-8');
    expect(reply.text).to.match(/^<!DOCTYPE html>/);
  });

  it("answers 200 with garbage under the format's content type", async () => {
    const json = await rawPost(url('/garbage/json'), LEAD);
    expect(json.status).to.equal(200);
    expect(json.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(json.body.length).to.equal(64);
    expect(() => JSON.parse(json.body.toString())).to.throw(SyntaxError);
    const text = await rawPost(url('/garbage/text'), LEAD);
    expect(text.body.toString('latin1')).to.not.match(/^(ACCEPTED|REJECTED)\|/);
  });

  it('fails at roughly the configured rates', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 500; i += 1) statuses.push((await send(simulator(), '/mix', LEAD)).status);
    const share = (status: number) => statuses.filter((s) => s === status).length / statuses.length;
    expect(share(500)).to.be.closeTo(0.2, 0.05);
    expect(share(503)).to.be.closeTo(0.1, 0.04);
    expect(share(200)).to.be.closeTo(0.7, 0.06);
    const stats = simulator().stats().endpoints['/mix'];
    expect(stats.errors.status500 + stats.errors.status503 + stats.accepted).to.equal(500);
  });

  it('remembers nothing from a failed ping', async () => {
    expect((await send(simulator(), '/broken/ping', PING)).status).to.equal(500);
    expect(await sendJson(simulator(), '/broken/post', LEAD)).to.deep.equal({
      status: 'rejected',
      reason: 'no matching ping',
    });
  });

  it('lets close() cut a hanging request', async () => {
    const hanging = await startSimulator({ endpoints: [always('hang')], seed: SEED });
    const reply = rawPost(`${hanging.url}/hang/json`, LEAD, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await hanging.close();
    expect(performance.now() - started).to.be.below(1000);
    expect((await reply).error).to.not.equal(undefined);
  });
});
