import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BuyerRequest } from '@leadflow/distribution/src/buyers/integration/request-builder';
import {
  DEFAULT_MAX_REPLY_BYTES,
  sendToBuyer,
  type TransportOptions,
} from '@leadflow/distribution/src/buyers/integration/transport';
import { expect } from 'chai';
import { type Handler, json, type LocalServer, startLocalServer } from '../../../../support/local-server.js';
import { makeCertificates } from '../../../../support/tls-certificates.js';

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

  it('reads a chunked reply and keeps its connection', async () => {
    const buyer = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"status":');
      setTimeout(() => response.end('"accepted"}'), 20);
    });
    for (let call = 0; call < 2; call++)
      expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'reply', body: '{"status":"accepted"}' });
    expect(buyer.connections()).to.equal(1);
  });

  it('opens a new connection after a reply that closes its own, or once the buyer closed an idle one', async () => {
    let calls = 0;
    const buyer = await serve((_, response) => {
      calls += 1;
      const socket = response.socket;
      if (calls === 1) response.setHeader('connection', 'close');
      json(response, 200, { status: 'accepted' });
      if (calls === 2) setTimeout(() => socket?.destroy(), 20);
    });
    for (let call = 0; call < 3; call++) {
      expect(await sendToBuyer(post(buyer.url()), LOCAL)).to.include({ kind: 'reply', status: 200 });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(buyer.connections()).to.equal(3);
  });

  describe('against buyers that break HTTP', () => {
    let raw: Server | undefined;
    let accepted = 0;
    /** A TCP server that answers the first bytes of its `index`th request with `reply(socket, index)`. */
    const serveRaw = async (reply: (socket: Socket, index: number) => void) => {
      accepted = 0;
      let index = 0;
      raw = createTcpServer((socket) => {
        accepted += 1;
        socket.on('data', () => reply(socket, index++));
        socket.on('error', () => undefined);
      });
      raw.listen(0, '127.0.0.1');
      await once(raw, 'listening');
      return `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;
    };
    afterEach(async () => {
      raw?.close();
      raw = undefined;
    });

    it('reports a malformed reply as a failure and never reuses its connection', async () => {
      const url = await serveRaw((socket, index) =>
        socket.write(
          index === 0
            ? 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'
            : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
        ),
      );
      expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'failed', error: 'other' });
      expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'reply', body: 'ok' });
      expect(accepted).to.equal(2);
    });

    it('drops an idle connection its buyer writes on, and calls on a new one', async () => {
      const url = await serveRaw((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale'), 20);
      });
      expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'reply', body: 'ok' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'reply', body: 'ok' });
      expect(accepted).to.equal(2);
    });

    it('never reuses a connection whose buyer answered before reading the whole request', async () => {
      const url = await serveRaw((socket, index) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        // The first request's body is left unread: were its connection kept, the next call's request
        // would wait behind it.
        if (index === 0) socket.pause();
      });
      const large = post(url, `{"padding":"${'a'.repeat(32 * 1024 * 1024)}"}`);
      expect(await sendToBuyer(large, LOCAL)).to.include({ kind: 'reply', body: 'ok' });
      expect(await sendToBuyer(post(url), { ...LOCAL, timeoutMs: 1_000 })).to.include({ kind: 'reply', body: 'ok' });
      expect(accepted).to.equal(2);
    });

    describe('a kept connection the buyer closes as a request goes out', () => {
      /** Answers the first request on each connection, and closes the connection on its second unanswered. */
      const closingSecondRequests = () => {
        const requestsOn = new WeakMap<Socket, number>();
        return serveRaw((socket) => {
          const seen = (requestsOn.get(socket) ?? 0) + 1;
          requestsOn.set(socket, seen);
          if (seen === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
          else socket.destroy();
        });
      };

      it('sends a request marked safe to resend once more, on a new connection', async () => {
        const url = await closingSecondRequests();
        const ping = { ...LOCAL, resendOnClosedConnection: true };
        expect(await sendToBuyer(post(url), ping)).to.include({ kind: 'reply', body: 'ok' });
        expect(await sendToBuyer(post(url), ping)).to.include({ kind: 'reply', body: 'ok' });
        expect(accepted).to.equal(2);
      });

      it('never sends a post twice: it fails as a reset', async () => {
        const url = await closingSecondRequests();
        expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'reply', body: 'ok' });
        expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'failed', error: 'reset' });
        expect(accepted).to.equal(1);
      });

      it('resends nothing when the connection was new, or the reply had begun', async () => {
        const url = await serveRaw((socket) => socket.destroy());
        const ping = { ...LOCAL, resendOnClosedConnection: true };
        expect(await sendToBuyer(post(url), ping)).to.include({ kind: 'failed', error: 'reset' });
        expect(accepted).to.equal(1);
        raw?.close();
        const cutting = await serveRaw((socket, index) => {
          if (index === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
          else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\ncut');
        });
        expect(await sendToBuyer(post(cutting), ping)).to.include({ kind: 'reply', body: 'ok' });
        expect(await sendToBuyer(post(cutting), ping)).to.include({ kind: 'failed', error: 'reset' });
        expect(accepted).to.equal(1);
      });
    });

    it('gives up on a buyer that never ends its headers, within their bound', async () => {
      const url = await serveRaw((socket) => {
        socket.write('HTTP/1.1 200 OK\r\n');
        const pump = () => {
          while (!socket.destroyed && socket.write('X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n'));
          if (!socket.destroyed) socket.once('drain', pump);
        };
        pump();
      });
      expect(await sendToBuyer(post(url), LOCAL)).to.include({ kind: 'failed', error: 'other' });
    });
  });

  it('calls an https buyer, keeping its connection and resuming its TLS session', async function () {
    this.timeout(60_000);
    const certificates = await makeCertificates();
    const tlsServer = createHttpsServer(
      {
        cert: readFileSync(certificates.distribution.cert),
        key: readFileSync(certificates.distribution.key),
      },
      (_, response) => json(response, 200, { status: 'accepted' }),
    );
    const sessions: boolean[] = [];
    tlsServer.on('secureConnection', (socket: TLSSocket) => sessions.push(socket.isSessionReused()));
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer, 'listening');
    const url = `https://localhost:${(tlsServer.address() as AddressInfo).port}/leads`;
    // The buyer's CA is trusted the way an operator adds one: NODE_EXTRA_CA_CERTS, read at start.
    const script = `
      const { sendToBuyer } = await import(${JSON.stringify(TRANSPORT)});
      const call = () => sendToBuyer({ url: ${JSON.stringify(url)}, method: 'POST', headers: {}, body: '{}' }, { timeoutMs: 10000, local: true });
      const results = [await call(), await call()];
      await new Promise((resolve) => setTimeout(resolve, 4500));
      results.push(await call());
      console.log(JSON.stringify(results.map((result) => result.kind === 'reply' ? result.body : result)));
      process.exit(0);`;
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=source', '--import=tsx', '--input-type=module', '--eval', script],
        { env: { ...process.env, NODE_EXTRA_CA_CERTS: certificates.distribution.ca } },
      );
      expect(JSON.parse(stdout)).to.deep.equal(Array(3).fill('{"status":"accepted"}'));
      // Two connections: the second call reused the first, the third came after it was idle for 4 s.
      expect(sessions).to.deep.equal([false, true]);
    } finally {
      tlsServer.closeAllConnections();
      tlsServer.close();
      await certificates.remove();
    }
  });
});

const TRANSPORT = fileURLToPath(
  new URL('../../../../../services/distribution/src/buyers/integration/transport.ts', import.meta.url),
);
