import type { HttpTimeouts } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { testKey, VALID_LEAD } from '../support/gateway.js';
import { ListeningGateway } from '../support/listening-gateway.js';
import { type RawClient, requestHead } from '../support/raw-client.js';
import { ScriptedDistribution } from '../support/scripted-distribution.js';

const KEY = testKey('slow-clients');
const BODY = JSON.stringify(VALID_LEAD);
/** Short limits, so that these tests take a second; the defaults are checked in config.test.ts. */
const SHORT: HttpTimeouts = { headersMs: 300, requestMs: 600, keepAliveMs: 300 };
/** A trickle that would last 30 s if nothing cut it: every assertion below is "cut long before that". */
const TRICKLE_INTERVAL_MS = 100;
const TRICKLE_BYTES = 300;

function intakeHead(key: string, contentLength: number): string {
  return requestHead('POST', `/api/intake/${key}`, {
    'Content-Type': 'application/json',
    'Content-Length': contentLength,
  });
}

describe('gateway: slow clients, against a listening gateway', function () {
  this.timeout(60_000);
  const distribution = new ScriptedDistribution();
  const gateway = new ListeningGateway(distribution);

  function listen(httpTimeouts: HttpTimeouts, rateLimit = 60): Promise<void> {
    return gateway.listen({ httpTimeouts, defaultRateLimitPerMinute: rateLimit });
  }

  function client(): Promise<RawClient> {
    return gateway.client();
  }

  before(async () => {
    await distribution.start();
    distribution.keys.set(KEY, { publisherId: 'pub-1', rateLimitPerMinute: 0 });
  });
  after(() => distribution.stop());
  afterEach(async () => {
    distribution.reset();
    await gateway.close();
  });

  it('answers 408 and closes a connection whose headers trickle in a byte at a time', async () => {
    await listen(SHORT);
    const slow = await client();
    const finished = await slow.trickle(
      `${intakeHead(KEY, BODY.length)}${'x'.repeat(TRICKLE_BYTES)}`,
      TRICKLE_INTERVAL_MS,
    );
    expect(finished, 'the server let the trickle run to its end').to.equal(false);
    expect(slow.statuses).to.deep.equal([408]);
  });

  it('answers 408 and closes a connection whose body trickles in a byte at a time, after a good key', async () => {
    await listen(SHORT);
    const slow = await client();
    slow.write(intakeHead(KEY, TRICKLE_BYTES));
    const finished = await slow.trickle('x'.repeat(TRICKLE_BYTES), TRICKLE_INTERVAL_MS);
    expect(finished, 'the server let the trickle run to its end').to.equal(false);
    expect(slow.statuses).to.deep.equal([408]);
    expect(distribution.submitCalls).to.have.length(0);
  });

  it('closes a connection that never sends a byte', async () => {
    await listen(SHORT);
    const silent = await client();
    await Promise.race([
      silent.closed,
      new Promise((resolve) => setTimeout(resolve, TRICKLE_BYTES * TRICKLE_INTERVAL_MS)),
    ]);
    expect(silent.isClosed, 'a silent connection is still open').to.equal(true);
  });

  it('closes a keep-alive connection left idle after its answer', async () => {
    await listen(SHORT);
    const idle = await client();
    idle.write(requestHead('GET', '/health/live'));
    await idle.waitFor((c) => c.statuses.length === 1);
    expect(idle.statuses).to.deep.equal([200]);
    expect(idle.headers(0).connection).to.equal('keep-alive');
    await Promise.race([
      idle.closed,
      new Promise((resolve) => setTimeout(resolve, TRICKLE_BYTES * TRICKLE_INTERVAL_MS)),
    ]);
    expect(idle.isClosed, 'an idle keep-alive connection is still open').to.equal(true);
  });

  it('does not cut an answer that takes longer than the request timeout once the body is in', async () => {
    await listen(SHORT);
    distribution.submitDelayMs = SHORT.requestMs * 3;
    const patient = await client();
    patient.write(intakeHead(KEY, Buffer.byteLength(BODY)) + BODY);
    await patient.waitFor((c) => c.statuses.length === 1);
    expect(patient.statuses).to.deep.equal([200]);
  });

  // What the gateway does with the rest of a refused request (reads and discards it, within limits) is in
  // lingering-close.test.ts: here, that the answer ends the connection without waiting for the body.
  describe('with limits long enough that only the answer can end the connection', () => {
    const LONG: HttpTimeouts = { headersMs: 60_000, requestMs: 60_000, keepAliveMs: 60_000 };

    it('answers 401 to a bad key before reading the body, and ends the connection instead of waiting for it', async () => {
      await listen(LONG);
      const guesser = await client();
      guesser.write(intakeHead(testKey('nobody'), TRICKLE_BYTES));
      await guesser.waitFor((c) => c.statuses.length === 1);
      expect(guesser.statuses).to.deep.equal([401]);
      expect(guesser.headers(0).connection).to.equal('close');
      const finished = await guesser.trickle('x'.repeat(TRICKLE_BYTES), TRICKLE_INTERVAL_MS);
      expect(finished, 'the server waited for the body of a request it refused').to.equal(false);
      expect(guesser.statuses).to.deep.equal([401]);
    });

    it('ends the connection after a 429', async () => {
      await listen(LONG, 1);
      distribution.keys.set(testKey('limited'), { publisherId: 'pub-limited', rateLimitPerMinute: 1 });
      const busy = await client();
      const request = intakeHead(testKey('limited'), Buffer.byteLength(BODY)) + BODY;
      busy.write(request);
      await busy.waitFor((c) => c.statuses.length === 1);
      expect(busy.headers(0).connection).to.equal('keep-alive');
      busy.write(intakeHead(testKey('limited'), TRICKLE_BYTES));
      await busy.waitFor((c) => c.statuses.length === 2);
      expect(busy.statuses).to.deep.equal([200, 429]);
      expect(busy.headers(1).connection).to.equal('close');
      expect(await busy.trickle('x'.repeat(TRICKLE_BYTES), TRICKLE_INTERVAL_MS)).to.equal(false);
    });

    it('ends the connection after a 413, without waiting for the rest of the body', async () => {
      await listen(LONG);
      const large = await client();
      large.write(intakeHead(KEY, 1024 * 1024));
      await large.waitFor((c) => c.statuses.length === 1);
      expect(large.statuses).to.deep.equal([413]);
      expect(large.headers(0).connection).to.equal('close');
      expect(await large.trickle('x'.repeat(TRICKLE_BYTES), TRICKLE_INTERVAL_MS)).to.equal(false);
    });

    it('ends the connection after any answer sent before the body was in', async () => {
      await listen(LONG);
      const unsupported = await client();
      unsupported.write(
        requestHead('POST', `/api/intake/${KEY}`, { 'Content-Type': 'text/plain', 'Content-Length': TRICKLE_BYTES }),
      );
      await unsupported.waitFor((c) => c.statuses.length === 1);
      expect(unsupported.statuses).to.deep.equal([415]);
      expect(unsupported.headers(0).connection).to.equal('close');
      expect(await unsupported.trickle('x'.repeat(TRICKLE_BYTES), TRICKLE_INTERVAL_MS)).to.equal(false);
    });
  });
});
