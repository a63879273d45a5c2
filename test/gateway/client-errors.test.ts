import { expect } from 'chai';
import { ListeningGateway } from '../support/listening-gateway.js';
import { ScriptedDistribution } from '../support/scripted-distribution.js';

/*
 * Requests Node cannot parse as HTTP never reach a route: they are answered by the server's client-error
 * handler, which must still speak the gateway's error body and close the connection.
 */
describe('gateway: requests that are not HTTP, against a listening gateway', () => {
  const distribution = new ScriptedDistribution();
  const gateway = new ListeningGateway(distribution);

  before(async () => {
    await distribution.start();
    await gateway.listen({ httpTimeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 300 } });
  });
  after(async () => {
    await gateway.close();
    await distribution.stop();
  });

  async function answerTo(raw: string) {
    const client = await gateway.client();
    client.write(raw);
    await client.closed;
    const [answer] = client.answers;
    expect(answer, `an answer to ${JSON.stringify(raw.slice(0, 40))}`).to.not.equal(undefined);
    return { status: answer!.status, headers: answer!.headers, body: JSON.parse(answer!.body) as unknown };
  }

  const malformed = {
    'a request line that is not one': 'GARBAGE\r\n\r\n',
    'a Content-Length that is not a number': 'POST /api/intake/k HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n',
    'both Transfer-Encoding and Content-Length':
      'POST /api/intake/k HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
    'a header line without a colon': 'GET /health HTTP/1.1\r\nHost: a\r\nNo colon here\r\n\r\n',
  };
  for (const [name, raw] of Object.entries(malformed)) {
    it(`answers 400 in the error body of every 400 to ${name}, and closes`, async () => {
      const answer = await answerTo(raw);
      expect(answer.status).to.equal(400);
      expect(answer.headers['content-type']).to.match(/^application\/json/);
      expect(answer.body).to.deep.equal({ status: 'error', errors: { request: 'is not valid HTTP/1.1' } });
      expect(distribution.submitCalls).to.have.length(0);
    });
  }

  it('answers 431 with a message to headers over the limit', async () => {
    const answer = await answerTo(`GET /health HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer.status).to.equal(431);
    expect(answer.body).to.deep.equal({ status: 'error', message: 'The request headers are too large' });
  });

  it('answers 408 with a message to headers that never end', async () => {
    const answer = await answerTo('GET /health HTTP/1.1\r\nHost: a\r\n');
    expect(answer.status).to.equal(408);
    expect(answer.body).to.deep.equal({ status: 'error', message: 'The request did not arrive in time' });
  });
});
