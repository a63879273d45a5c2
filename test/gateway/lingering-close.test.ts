import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LINGER_MAX_BYTES } from '@leadflow/gateway/src/lingering-close';
import type { HttpTimeouts } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { testKey, VALID_LEAD } from '../support/gateway.js';
import { ListeningGateway } from '../support/listening-gateway.js';
import { type RawClient, requestHead } from '../support/raw-client.js';
import { python } from '../support/real-clients.js';
import { ScriptedDistribution } from '../support/scripted-distribution.js';
import { waitUntil } from '../support/wait-until.js';

const KEY = testKey('lingering-close');
const LIMITED_KEY = testKey('lingering-close-limited');
const LEAD = JSON.stringify(VALID_LEAD);
/** Far over the 64 KiB limit: the refusal is written long before the client is done sending. */
const BODY_BYTES = 2 * 1024 * 1024;
/** Long limits, so that only the answer and the client can end a connection, unless a test says otherwise. */
const LONG: HttpTimeouts = { headersMs: 60_000, requestMs: 60_000, keepAliveMs: 60_000 };

function post(key: string, contentLength: number, contentType = 'application/json'): string {
  return requestHead('POST', `/api/intake/${key}`, { 'Content-Type': contentType, 'Content-Length': contentLength });
}

describe('gateway: refused requests close lingering, against a listening gateway', function () {
  this.timeout(30_000);
  const distribution = new ScriptedDistribution();
  const gateway = new ListeningGateway(distribution);

  function listen(httpTimeouts: HttpTimeouts): Promise<void> {
    return gateway.listen({ httpTimeouts });
  }

  function client(): Promise<RawClient> {
    return gateway.client();
  }

  function openConnections(): Promise<number> {
    return gateway.openConnections();
  }

  before(async () => {
    await distribution.start();
    distribution.keys.set(KEY, { publisherId: 'pub-1', rateLimitPerMinute: 1000 });
    distribution.keys.set(LIMITED_KEY, { publisherId: 'pub-limited', rateLimitPerMinute: 1 });
  });
  after(() => distribution.stop());
  afterEach(async () => {
    distribution.reset();
    await gateway.close();
  });

  const refusals = [
    { status: 401, what: 'an unknown key', head: () => post(testKey('nobody'), BODY_BYTES) },
    { status: 413, what: 'a body over the limit', head: () => post(KEY, BODY_BYTES) },
    { status: 415, what: 'a body that is not JSON', head: () => post(KEY, BODY_BYTES, 'text/plain') },
    { status: 429, what: 'a key over its rate limit', head: () => post(LIMITED_KEY, BODY_BYTES) },
  ];

  for (const { status, what, head } of refusals) {
    it(`a client still sending its body after a ${status} (${what}) reads the answer and the end of the stream, never a reset`, async () => {
      await listen(LONG);
      if (status === 429) {
        const spender = await client();
        spender.write(post(LIMITED_KEY, Buffer.byteLength(LEAD)) + LEAD);
        await spender.waitFor((c) => c.statuses.length === 1);
        spender.destroy();
      }
      const sender = await client();
      sender.write(head());
      await sender.waitFor((c) => c.statuses.length === 1);
      expect(sender.statuses).to.deep.equal([status]);
      expect(sender.headers(0).connection).to.equal('close');

      const allSent = await sender.send(BODY_BYTES);
      expect(sender.resetBy, 'the gateway reset the connection while the client was sending').to.equal(undefined);
      expect(allSent).to.equal(true);
      await sender.closed;
      expect(sender.isClosed, 'the gateway did not end its side after the answer').to.equal(true);
      sender.end();
      await sender.gone;
      expect(sender.resetBy).to.equal(undefined);
      expect(sender.statuses).to.deep.equal([status]);
      await waitUntil('the gateway to close the connection', async () => (await openConnections()) === 0);
    });
  }

  it("answers Python's http.client, which writes a 10 MB body before it reads, 413 every time", async () => {
    // Short, so that a gateway that stops reading cuts the client within the test, as the default 5 s does.
    await listen({ ...LONG, keepAliveMs: 1000 });
    const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-lingering-close-'));
    try {
      const body = JSON.stringify({ pad: 'x'.repeat(10 * 1024 * 1024) });
      const bodyFile = path.join(dir, 'body.json');
      await writeFile(bodyFile, body);
      const batch = { url: gateway.url(`/api/intake/${KEY}`), contentType: 'application/json', body, bodyFile };
      const results = await python.post({ ...batch, count: 6, concurrency: 2 });
      const answer = {
        status: 413,
        body: JSON.stringify({ status: 'error', message: 'The request body exceeds 64 KiB' }),
      };
      expect(results).to.deep.equal(Array(6).fill(answer));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets a refused client still sending when the gateway shuts down read its answer, then closes', async () => {
    await listen(LONG);
    const sender = await client();
    sender.write(post(KEY, BODY_BYTES));
    await sender.waitFor((c) => c.statuses.length === 1);
    expect(sender.statuses).to.deep.equal([413]);
    const closed = gateway.app?.close();
    expect(await sender.send(BODY_BYTES)).to.equal(true);
    sender.end();
    await sender.gone;
    expect(sender.resetBy).to.equal(undefined);
    await closed;
  });

  it(`stops reading once a refused client has sent ${LINGER_MAX_BYTES / 1024 / 1024} MiB more, and closes`, async () => {
    await listen(LONG);
    const endless = await client();
    endless.write(post(KEY, 1024 * 1024 * 1024));
    await endless.waitFor((c) => c.statuses.length === 1);
    expect(endless.statuses).to.deep.equal([413]);
    const allSent = await endless.send(4 * LINGER_MAX_BYTES);
    expect(allSent, 'the gateway read four times its limit').to.equal(false);
    // What the kernels' buffers hold on both sides comes on top of what the gateway read.
    expect(endless.bytesSent).to.be.within(LINGER_MAX_BYTES, 2 * LINGER_MAX_BYTES);
    await waitUntil('the gateway to close the connection', async () => (await openConnections()) === 0);
  });

  it('closes a refused connection whose client stops sending, after the keep-alive timeout', async () => {
    await listen({ ...LONG, keepAliveMs: 300 });
    const silent = await client();
    silent.write(post(testKey('nobody'), BODY_BYTES));
    await silent.waitFor((c) => c.statuses.length === 1);
    expect(silent.statuses).to.deep.equal([401]);
    // Well before the 60 s request timeout; the client neither sends nor closes.
    await waitUntil('the gateway to close the connection', async () => (await openConnections()) === 0, 10_000);
  });

  it('cuts a refused client that trickles its body, at the request timeout, as any slow client', async () => {
    await listen({ headersMs: 300, requestMs: 600, keepAliveMs: 60_000 });
    const slow = await client();
    slow.write(post(testKey('nobody'), 300));
    await slow.waitFor((c) => c.statuses.length === 1);
    expect(slow.statuses).to.deep.equal([401]);
    // A byte every 100 ms would take 30 s: the client learns the connection is gone when a byte is reset.
    const finished = await slow.trickle('x'.repeat(300), 100, 'gone');
    expect(finished, 'the gateway read a trickled body past the request timeout').to.equal(false);
    expect(slow.statuses).to.deep.equal([401]);
  });

  it('closes at once, without waiting for the client, when the refused request was all in', async () => {
    await listen(LONG);
    const whole = await client();
    whole.write(post(testKey('nobody'), Buffer.byteLength(LEAD)) + LEAD);
    await whole.waitFor((c) => c.statuses.length === 1);
    expect(whole.statuses).to.deep.equal([401]);
    await whole.closed;
    await waitUntil('the gateway to close the connection', async () => (await openConnections()) === 0, 10_000);
  });

  it('never reads a request sent after the refused one as a request', async () => {
    await listen(LONG);
    const pipelining = await client();
    pipelining.write(post(testKey('nobody'), 10));
    await pipelining.waitFor((c) => c.statuses.length === 1);
    expect(pipelining.statuses).to.deep.equal([401]);
    pipelining.write(`${'x'.repeat(10)}${post(KEY, Buffer.byteLength(LEAD))}${LEAD}`);
    // Had the gateway parsed it, the lead would be on its way to the distribution service by now.
    await sleep(300);
    pipelining.end();
    await pipelining.gone;
    expect(distribution.submitCalls).to.have.length(0);
    expect(pipelining.statuses).to.deep.equal([401]);
  });
});
