import type { BuyerRequest } from '@leadflow/distribution/src/buyers/integration/request-builder';
import {
  DEFAULT_MAX_REPLY_BYTES,
  sendToBuyer,
  type TransportOptions,
} from '@leadflow/distribution/src/buyers/integration/transport';
import { expect } from 'chai';
import { type Handler, json, type LocalServer, startLocalServer } from '../../../../support/local-server.js';

const LOCAL: TransportOptions = { timeoutMs: 5_000, local: true };
// Bounds for timing checks: wide enough that a loaded CI machine cannot make them fail.
const SLACK_MS = 2_000;

function post(url: string, body = '{"leadId":"lead-1"}'): BuyerRequest {
  return { url, method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k-1' }, body };
}

describe('sendToBuyer against real HTTP servers', () => {
  let server: LocalServer | undefined;
  const serve = async (handler: Handler, host?: string) => (server = await startLocalServer(handler, host));
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('delivers the request and returns the reply', async () => {
    const buyer = await serve((_, response) => json(response, 200, { status: 'accepted' }));
    const result = await sendToBuyer(post(buyer.url('/leads?src=lf')), LOCAL);
    expect(result).to.include({
      kind: 'reply',
      status: 200,
      contentType: 'application/json',
      body: '{"status":"accepted"}',
    });
    expect(result.latencyMs).to.be.a('number').and.at.least(0);
    expect(buyer.requests).to.have.length(1);
    expect(buyer.requests[0]).to.include({ method: 'POST', path: '/leads?src=lf', body: '{"leadId":"lead-1"}' });
    expect(buyer.requests[0].headers).to.include({
      'x-api-key': 'k-1',
      'content-type': 'application/json',
      'content-length': '19',
    });
  });

  it('reaches an IPv6 literal, and sends each request to its own URL however many went before', async () => {
    const buyer = await serve((_, response) => json(response, 200, { status: 'accepted' }), '::1');
    const get = (query: string): BuyerRequest => ({
      url: buyer.url(`/q?${query}`),
      method: 'GET',
      headers: {},
      body: undefined,
    });
    for (const request of [post(buyer.url('/v6?k=1')), post(buyer.url('/v6?k=1')), get('a=1'), get('a=2')]) {
      expect(await sendToBuyer(request, LOCAL)).to.include({ kind: 'reply', status: 200 });
    }
    expect(buyer.requests.map((request) => [request.method, request.path, request.headers.host])).to.deep.equal([
      ['POST', '/v6?k=1', `[::1]:${buyer.port}`],
      ['POST', '/v6?k=1', `[::1]:${buyer.port}`],
      ['GET', '/q?a=1', `[::1]:${buyer.port}`],
      ['GET', '/q?a=2', `[::1]:${buyer.port}`],
    ]);
  });

  it('returns a 5xx as a reply with its status', async () => {
    const buyer = await serve((_, response) => json(response, 503, { error: 'maintenance' }));
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'reply', status: 503 });
  });

  it('does not follow redirects', async () => {
    const buyer = await serve((request, response) => {
      if (request.path === '/elsewhere') return json(response, 200, { status: 'accepted' });
      response.writeHead(302, { location: '/elsewhere', 'content-length': 0 });
      response.end();
    });
    expect(await sendToBuyer(post(buyer.url('/leads')), LOCAL)).to.include({ kind: 'reply', status: 302 });
    expect(buyer.requests.map((request) => request.path)).to.deep.equal(['/leads']);
  });

  it('gives up on a reply that hangs, on time', async () => {
    const buyer = await serve(() => undefined);
    const started = performance.now();
    const result = await sendToBuyer(post(buyer.url()), { ...LOCAL, timeoutMs: 300 });
    const elapsed = performance.now() - started;
    expect(result.kind).to.equal('timeout');
    expect(elapsed)
      .to.be.at.least(290)
      .and.below(300 + SLACK_MS);
    expect(result.latencyMs)
      .to.be.at.least(290)
      .and.below(300 + SLACK_MS);
  });

  it('gives up on a body that trickles past the timeout', async () => {
    const buyer = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"status":');
    });
    expect((await sendToBuyer(post(buyer.url()), { ...LOCAL, timeoutMs: 300 })).kind).to.equal('timeout');
  });

  it('ends at once when the signal aborts, as a timeout', async () => {
    const buyer = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const result = await sendToBuyer(post(buyer.url()), { ...LOCAL, timeoutMs: 30_000, signal: controller.signal });
    expect(result.kind).to.equal('timeout');
    expect(performance.now() - started).to.be.below(100 + SLACK_MS);
  });

  it('reports a connection reset in the middle of the reply', async () => {
    const buyer = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"status":"acc', () => response.socket?.destroy());
    });
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'failed', error: 'reset' });
  });

  it('reports a connection closed before any reply', async () => {
    const buyer = await serve((_, response) => response.socket?.destroy());
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'failed', error: 'reset' });
  });

  it('reports a body shorter than its Content-Length, never returning the part', async () => {
    const buyer = await serve((_, response) => {
      const socket = response.socket!;
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"status":"accepted"',
      );
      socket.end();
    });
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'failed', error: 'reset' });
  });

  it('cuts off a reply above the size cap (streamed, no Content-Length)', async () => {
    let written = 0;
    const buyer = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (written < 10 * 1024 * 1024 && !response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'failed', error: 'too_large' });
    expect(written).to.be.below(10 * 1024 * 1024);
  });

  it('refuses a reply whose Content-Length is above the cap, before reading it', async () => {
    const buyer = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': DEFAULT_MAX_REPLY_BYTES + 1 });
      response.end('x'.repeat(DEFAULT_MAX_REPLY_BYTES + 1));
    });
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'failed', error: 'too_large' });
  });

  it('takes a reply of exactly the cap, and honours a smaller cap', async () => {
    const buyer = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('y'.repeat(1000));
    });
    const whole = await sendToBuyer(post(buyer.url()), { ...LOCAL, maxReplyBytes: 1000 });
    expect(whole).to.include({ kind: 'reply', status: 200 });
    expect(whole.kind === 'reply' && whole.body.length).to.equal(1000);
    expect(await sendToBuyer(post(buyer.url()), { ...LOCAL, maxReplyBytes: 999 })).to.include({
      kind: 'failed',
      error: 'too_large',
    });
  });

  it('refuses http:// for a buyer not marked local, sending nothing', async () => {
    const buyer = await serve((_, response) => json(response, 200, {}));
    expect(await sendToBuyer(post(buyer.url()), { ...LOCAL, local: false })).to.include({
      kind: 'failed',
      error: 'not_allowed',
    });
    expect(buyer.connections()).to.equal(0);
  });

  it('refuses a name resolving to a non-public address for a buyer not marked local', async () => {
    const buyer = await serve((_, response) => json(response, 200, {}));
    const result = await sendToBuyer(post(`https://localhost:${buyer.port}/`), { ...LOCAL, local: false });
    expect(result).to.include({ kind: 'failed', error: 'not_allowed' });
    expect(buyer.connections()).to.equal(0);
  });

  it('refuses credentials in the URL', async () => {
    const buyer = await serve((_, response) => json(response, 200, {}));
    const result = await sendToBuyer(post(`http://user:pw@127.0.0.1:${buyer.port}/`), LOCAL);
    expect(result).to.include({ kind: 'failed', error: 'not_allowed' });
    expect(buyer.connections()).to.equal(0);
  });

  it('reports an invalid URL', async () => {
    expect(await sendToBuyer(post('not a url'), LOCAL)).to.include({ kind: 'failed', error: 'invalid_url' });
  });

  it('reports a refused connection', async () => {
    const buyer = await serve(() => undefined);
    const url = buyer.url();
    await buyer.close();
    server = undefined;
    expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'failed', error: 'connection_refused' });
  });

  it('reports a TLS failure', async () => {
    const buyer = await serve((_, response) => json(response, 200, {}));
    expect(await sendToBuyer(post(`https://127.0.0.1:${buyer.port}/`), LOCAL)).to.include({
      kind: 'failed',
      error: 'tls',
    });
  });

  it('reports a header the operator got wrong, sending nothing', async () => {
    const buyer = await serve((_, response) => json(response, 200, {}));
    const request = { ...post(buyer.url()), headers: { 'x-token': 'a\r\nInjected: yes' } };
    expect(await sendToBuyer(request, LOCAL)).to.include({ kind: 'failed', error: 'other' });
    expect(buyer.requests).to.have.length(0);
  });

  it('reuses one connection for consecutive calls', async () => {
    const buyer = await serve((_, response) => json(response, 200, { status: 'accepted' }));
    for (let call = 0; call < 3; call++)
      expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'reply', status: 200 });
    expect(buyer.requests).to.have.length(3);
    expect(buyer.connections()).to.equal(1);
  });

  it('never reuses a connection it gave up on', async () => {
    let calls = 0;
    const buyer = await serve((_, response) => {
      if (++calls > 1) json(response, 200, { status: 'accepted' });
    });
    expect((await sendToBuyer(post(buyer.url()), { ...LOCAL, timeoutMs: 200 })).kind).to.equal('timeout');
    expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'reply', status: 200 });
    expect(buyer.connections()).to.equal(2);
  });

  it('sends nothing once given up on before its connection was up', async () => {
    const buyer = await serve((_, response) => json(response, 200, { status: 'accepted' }));
    const controller = new AbortController();
    const call = sendToBuyer(post(buyer.url('/late')), { ...LOCAL, signal: controller.signal });
    controller.abort();
    expect((await call).kind).to.equal('timeout');
    expect(await sendToBuyer(post(buyer.url('/next')), LOCAL)).to.include({ kind: 'reply', status: 200 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(buyer.requests.map((request) => request.path)).to.deep.equal(['/next']);
  });
});
