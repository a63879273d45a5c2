import { expect } from 'chai';
import { testKey, VALID_LEAD } from '../../support/gateway.js';
import { ListeningGateway } from '../../support/listening-gateway.js';
import { requestHead } from '../../support/raw-client.js';
import { ScriptedDistribution } from '../../support/scripted-distribution.js';

const KEY = testKey('protocol-checks');
const LEAD = JSON.stringify(VALID_LEAD);

/* Node answers these itself, with an empty body, unless the gateway takes them: so a listening gateway. */
describe('gateway: what HTTP/1.1 requires of a request, against a listening gateway', () => {
  const distribution = new ScriptedDistribution();
  const gateway = new ListeningGateway(distribution);

  before(async () => {
    await distribution.start();
    distribution.keys.set(KEY, { publisherId: 'pub-1', rateLimitPerMinute: 1000 });
    await gateway.listen({});
  });
  afterEach(() => distribution.reset());
  after(async () => {
    await gateway.close();
    await distribution.stop();
  });

  async function answersTo(raw: string, count = 1) {
    const client = await gateway.client();
    client.write(raw);
    await client.waitFor((c) => c.answers.length === count);
    client.destroy();
    return client.answers.map((answer) => ({ ...answer, json: answer.body && (JSON.parse(answer.body) as unknown) }));
  }

  const intake = (headers: Record<string, string | number>) =>
    requestHead('POST', `/api/intake/${KEY}`, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(LEAD),
      ...headers,
    });

  it('answers an HTTP/1.1 request without a Host header 400 with errors.request', async () => {
    const withoutHost = intake({}).replace('Host: 127.0.0.1\r\n', '');
    const [answer] = await answersTo(withoutHost + LEAD);
    expect(answer!.status).to.equal(400);
    expect(answer!.headers['content-type']).to.match(/^application\/json/);
    expect(answer!.json).to.deep.equal({ status: 'error', errors: { request: 'must have a Host header' } });
    expect(distribution.submitCalls).to.have.length(0);
  });

  it('answers an HTTP/1.0 request without a Host header, which HTTP/1.0 does not require', async () => {
    const [answer] = await answersTo('GET /health/live HTTP/1.0\r\n\r\n');
    expect(answer!.status).to.equal(200);
  });

  it('answers an expectation other than 100-continue 417 with a message', async () => {
    const [answer] = await answersTo(intake({ Expect: 'foo' }) + LEAD);
    expect(answer!.status).to.equal(417);
    expect(answer!.headers['content-type']).to.match(/^application\/json/);
    expect(answer!.json).to.deep.equal({
      status: 'error',
      message: 'Only Expect: 100-continue is supported: send the request without another Expect',
    });
    expect(distribution.submitCalls).to.have.length(0);
  });

  it('still meets Expect: 100-continue', async () => {
    const client = await gateway.client();
    client.write(intake({ Expect: '100-continue' }));
    await client.waitFor((c) => c.answers.length === 1);
    expect(client.statuses).to.deep.equal([100]);
    client.write(LEAD);
    await client.waitFor((c) => c.answers.length === 2);
    expect(client.statuses).to.deep.equal([100, 200]);
    client.destroy();
  });
});
