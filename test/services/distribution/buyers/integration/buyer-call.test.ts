import type { HttpExchange, Integration } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { callBuyer } from '@leadflow/distribution/src/buyers/integration/buyer-call';
import { PING_WITHHELD_FIELDS } from '@leadflow/distribution/src/buyers/integration/ping-lead';
import { FILTER_FIELDS } from '@leadflow/distribution/src/buyers/rules/filter-fields';
import { leadFacts } from '@leadflow/distribution/src/buyers/rules/lead-facts';
import { expect } from 'chai';
import { exchange, JSON_STATUS_PARSER, lead } from '../../../../support/exchange-fixtures.js';
import { type Handler, json, type LocalServer, startLocalServer } from '../../../../support/local-server.js';

const SLACK_MS = 2_000;

function integration(post: HttpExchange, overrides: Partial<Integration> = {}): Integration {
  return {
    mode: 'direct_post',
    ping: undefined,
    post,
    timeoutMs: 5_000,
    pingTimeoutMs: undefined,
    postTimeoutMs: undefined,
    local: true,
    testBehaviour: 'test_url',
    onTimeout: 'unconfirmed',
    statusLookup: undefined,
    ...overrides,
  };
}

describe('callBuyer against real HTTP servers', () => {
  let buyer: LocalServer;
  let handler: Handler;
  beforeEach(async () => {
    handler = (_, response) => json(response, 200, { status: 'accepted', id: 'B-1' });
    buyer = await startLocalServer((request, response) => handler(request, response));
  });
  afterEach(() => buyer.close());

  const post = (overrides: Partial<HttpExchange> = {}) =>
    exchange({
      url: buyer.url('/live'),
      mapping: {
        'applicant.email': { field: 'email', transform: [] },
        'applicant.state': { field: 'state', transform: [] },
      },
      response: { ...JSON_STATUS_PARSER, reference: { path: '$.id' } },
      ...overrides,
    });

  it('posts the mapped lead and reads the acceptance', async () => {
    const result = await callBuyer(post(), integration(post()), lead(), { test: false, kind: 'post' });
    expect(result).to.deep.include({
      outcome: 'accepted',
      httpStatus: 200,
      reply: { outcome: 'accepted', reference: 'B-1' },
    });
    expect(JSON.parse(buyer.requests[0].body)).to.deep.equal({
      applicant: { email: 'jane.doe@example.com', state: 'IL' },
    });
    expect(buyer.requests[0].path).to.equal('/live');
  });

  it('reads a rejection', async () => {
    handler = (_, response) => json(response, 200, { status: 'rejected', reason: 'duplicate' });
    const result = await callBuyer(post(), integration(post()), lead(), { test: false, kind: 'post' });
    expect(result).to.deep.include({
      outcome: 'rejected',
      httpStatus: 200,
      reply: { outcome: 'rejected', reason: 'duplicate' },
    });
  });

  it('never sells on a 5xx', async () => {
    handler = (_, response) => json(response, 500, { status: 'accepted' });
    const result = await callBuyer(post(), integration(post()), lead(), { test: false, kind: 'post' });
    expect(result).to.deep.include({
      outcome: 'error',
      httpStatus: 500,
      reply: { outcome: 'error', error: 'http_status' },
    });
  });

  it('never sells on an HTML page', async () => {
    handler = (_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body>Service temporarily overloaded</body></html>');
    };
    const result = await callBuyer(post(), integration(post()), lead(), { test: false, kind: 'post' });
    expect(result).to.deep.include({
      outcome: 'error',
      httpStatus: 200,
      reply: { outcome: 'error', error: 'html_reply' },
    });
  });

  it('reports a post with no reply in time as a timeout, not an error', async () => {
    handler = () => undefined;
    const result = await callBuyer(post(), integration(post(), { timeoutMs: 300 }), lead(), {
      test: false,
      kind: 'post',
    });
    expect(result).to.deep.include({
      outcome: 'timeout',
      httpStatus: null,
      reply: { outcome: 'error', error: 'timeout' },
    });
    expect(result.latencyMs)
      .to.be.at.least(290)
      .and.below(300 + SLACK_MS);
  });

  it('cuts the timeout to the deadline', async () => {
    handler = () => undefined;
    const started = performance.now();
    const result = await callBuyer(post(), integration(post(), { timeoutMs: 30_000 }), lead(), {
      test: false,
      kind: 'post',
      deadlineMs: Date.now() + 300,
    });
    expect(result.outcome).to.equal('timeout');
    expect(performance.now() - started).to.be.below(300 + SLACK_MS);
  });

  it('sends nothing once the deadline has passed', async () => {
    const result = await callBuyer(post(), integration(post()), lead(), {
      test: false,
      kind: 'post',
      deadlineMs: Date.now() - 1,
    });
    expect(result).to.deep.equal({
      reply: { outcome: 'error', error: 'deadline_passed' },
      httpStatus: null,
      latencyMs: 0,
      outcome: 'error',
    });
    expect(buyer.requests).to.have.length(0);
  });

  it('reports a transport failure as an error with its code', async () => {
    const remote = post();
    const result = await callBuyer(remote, integration(remote, { local: false }), lead(), {
      test: false,
      kind: 'post',
    });
    expect(result).to.deep.include({
      outcome: 'error',
      httpStatus: null,
      reply: { outcome: 'error', error: 'not_allowed' },
    });
    expect(buyer.connections()).to.equal(0);
  });

  it('keeps PII out of a ping whatever its mapping says', async () => {
    const ping = post({
      mapping: {
        email: { field: 'email', transform: [] },
        ssn: { field: 'ssn', transform: [] },
        first: { field: 'firstName', transform: [] },
        phone: { field: 'cellPhone', transform: [] },
        ip: { field: 'userIp', transform: [] },
        dob: { field: 'dob', transform: [] },
        state: { field: 'state', transform: [] },
        zip: { field: 'zip', transform: [] },
        age: { field: 'age', transform: [] },
        amount: { field: 'loanAmount', transform: [{ money: 'string' }] },
      },
    });
    const pinged = lead({ fields: { userIp: '203.0.113.7' } });
    await callBuyer(ping, integration(post(), { mode: 'ping_post', ping }), pinged, { test: false, kind: 'ping' });
    expect(JSON.parse(buyer.requests[0].body)).to.deep.equal({ state: 'IL', zip: '62701', age: 35, amount: '1500.00' });
  });

  it('keeps PII out of a ping even when the derived facts repeat every field, as the ping tree passes them', async () => {
    const sold = lead({
      fields: {
        userIp: '203.0.113.7',
        address: '1 Main St',
        homePhone: '2175550100',
        bankAba: '011000015',
        bankAccountNumber: '12345678',
        driversLicenseNumber: 'D1234567',
      },
    });
    const facts = leadFacts(
      {
        fields: sold.fields,
        ageYears: 35,
        loanAmountCents: 150_000,
        incomeNetMonthlyCents: 320_050,
        test: false,
        publisherId: 'pub_1',
        now: new Date(),
      },
      'UTC',
    );
    const everyField = Object.fromEntries(FILTER_FIELDS.map((field) => [field, { field, transform: [] }]));
    const ping = post({ mapping: everyField });
    await callBuyer(
      ping,
      integration(post(), { mode: 'ping_post', ping }),
      { ...sold, derived: { ...facts, priceFloor: 10 } },
      { test: false, kind: 'ping' },
    );
    const body = buyer.requests[0].body;
    for (const field of PING_WITHHELD_FIELDS) {
      const value = sold.fields[field];
      if (value) expect(body, field).not.to.include(value);
      expect(JSON.parse(body), field).not.to.have.property(field);
    }
    expect(JSON.parse(body)).to.include({ state: 'IL', zip: '62701', age: 35, loanAmount: 1500, publisherId: 'pub_1' });
  });

  it('sends a status lookup the lead and post ids alone, whatever its mapping says', async () => {
    const lookup = post({
      mapping: {
        lead: { field: 'leadId', transform: [] },
        post: { field: 'attemptId', transform: [] },
        email: { field: 'email', transform: [] },
        ssn: { field: 'ssn', transform: [] },
        state: { field: 'state', transform: [] },
        age: { field: 'age', transform: [] },
      },
    });
    await callBuyer(
      lookup,
      integration(post(), { statusLookup: lookup }),
      { ...lead(), attemptId: 'att-7' },
      { test: false, kind: 'statusLookup' },
    );
    expect(JSON.parse(buyer.requests[0].body)).to.deep.equal({ lead: 'lead-0001', post: 'att-7' });
  });

  describe('test leads', () => {
    it('go to the test URL, never the live one', async () => {
      const exchangeWithTest = post({ testUrl: buyer.url('/sandbox') });
      const result = await callBuyer(exchangeWithTest, integration(exchangeWithTest), lead(), {
        test: true,
        kind: 'post',
      });
      expect(result.outcome).to.equal('accepted');
      expect(buyer.requests.map((request) => request.path)).to.deep.equal(['/sandbox']);
    });

    it('without a test URL are an error, with no call at all', async () => {
      const result = await callBuyer(post(), integration(post()), lead(), { test: true, kind: 'post' });
      expect(result).to.deep.equal({
        reply: { outcome: 'error', error: 'no_test_url' },
        httpStatus: null,
        latencyMs: 0,
        outcome: 'error',
      });
      expect(buyer.connections()).to.equal(0);
    });

    it('are accepted or rejected by the test behaviour without any call', async () => {
      const accepted = await callBuyer(post(), integration(post(), { testBehaviour: 'accept' }), lead(), {
        test: true,
        kind: 'ping',
      });
      const rejected = await callBuyer(post(), integration(post(), { testBehaviour: 'reject' }), lead(), {
        test: true,
        kind: 'post',
      });
      expect(accepted).to.deep.equal({
        reply: { outcome: 'accepted', reason: 'test lead' },
        httpStatus: null,
        latencyMs: 0,
        outcome: 'accepted',
      });
      expect(rejected).to.deep.equal({
        reply: { outcome: 'rejected', reason: 'test lead' },
        httpStatus: null,
        latencyMs: 0,
        outcome: 'rejected',
      });
      expect(buyer.connections()).to.equal(0);
    });

    it('ignore the test behaviour for live leads', async () => {
      handler = (_, response) => json(response, 200, { status: 'rejected' });
      const result = await callBuyer(post(), integration(post(), { testBehaviour: 'accept' }), lead(), {
        test: false,
        kind: 'post',
      });
      expect(result.outcome).to.equal('rejected');
      expect(buyer.requests).to.have.length(1);
    });
  });
});
