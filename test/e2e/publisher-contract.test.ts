import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { validLeadBody } from '../support/leads.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { describeEachDatabase } from '../support/test-database.js';

// A publisher's client written from the spec alone, against the real gateway and distribution service.
describeEachDatabase('publisher contract over HTTP', (database) => {
  let stack: TestStack;
  let buyers: TestBuyerServer;
  let key: string;

  before(async () => {
    stack = await startTestStack(database());
    buyers = await startBuyerServer();
    buyers.behave('/lender', { kind: 'accept', redirectUrl: 'https://lender.example/continue?ref=1' });
    await stack.distribution.applyBuyers([
      testBuyer('lender', buyers.url('/lender'), {
        pricing: { type: 'fixed', price: '25.00' },
        filters: { field: 'state', in: ['CA', 'NY'] },
        integration: { testBehaviour: 'accept' },
      }),
    ]);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });
  beforeEach(async () => {
    ({ key } = await stack.distribution.createPublisher());
  });

  it('answers a sold lead with 200 and the sold shape', async () => {
    const { status, body } = await stack.post(key, validLeadBody());
    expect(status).to.equal(200);
    expect(body).to.have.all.keys('leadId', 'status', 'price', 'redirectUrl', 'buyerId', 'processingTime');
    expect(body.status).to.equal('sold');
    expect(body.price).to.equal(20);
    expect(body.redirectUrl).to.equal('https://lender.example/continue?ref=1');
    expect(body.leadId).to.be.a('string');
    expect(body.buyerId).to.be.a('string');
    expect(body.processingTime).to.be.a('number').and.at.least(0);
  });

  it('answers a rejected lead with 200 and the rejected shape', async () => {
    const { status, body } = await stack.post(key, validLeadBody({ state: 'TX', zip: '73301' }));
    expect(status).to.equal(200);
    expect(body).to.have.all.keys('leadId', 'status', 'reason', 'processingTime');
    expect(body.status).to.equal('rejected');
    expect(body.reason).to.be.a('string').and.not.empty;
  });

  it('answers missing and invalid fields with 400 and one error per field', async () => {
    const lead = validLeadBody({ email: 'not-an-email', zip: '1234', cellPhone: '123' });
    delete lead.firstName;
    const { status, body } = await stack.post(key, lead);
    expect(status).to.equal(400);
    expect(body.status).to.equal('error');
    expect(body.errors).to.have.all.keys('firstName', 'email', 'zip', 'cellPhone');
    for (const message of Object.values(body.errors)) expect(message).to.be.a('string');
  });

  it('treats an empty string as missing and a non-string value as an error', async () => {
    const { status, body } = await stack.post(key, validLeadBody({ lastName: '', loanAmount: 1500 }));
    expect(status).to.equal(400);
    expect(body.errors).to.deep.equal({ lastName: 'is required', loanAmount: 'must be a string' });
  });

  it('refuses text that would display other than it reads, naming each field', async () => {
    const { status, body } = await stack.post(
      key,
      validLeadBody({ lastName: 'Smith\u202egnp.exe', address: '1\u200b Main St', city: 'Spring\u2066field\u2069' }),
    );
    expect(status).to.equal(400);
    const message = 'must not contain invisible formatting characters (direction controls, zero-width characters)';
    expect(body.errors).to.deep.equal({ lastName: message, address: message, city: message });
  });

  it('answers an invalid key with 401', async () => {
    const { status, body } = await stack.post('not-a-key', validLeadBody());
    expect(status).to.equal(401);
    expect(body).to.include({ status: 'error' });
    expect(body.message).to.be.a('string');
  });

  it('answers 400 to malformed JSON and 415 to a body that is not JSON', async () => {
    const malformed = await stack.post(key, '{"price": "1"');
    expect(malformed.status).to.equal(400);
    expect(malformed.body.errors).to.have.property('body');
    const form = await stack.post(key, 'price=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).to.equal(415);
  });

  it('marks test leads as test, validates them the same way and charges nothing', async () => {
    const sold = await stack.post(key, validLeadBody({ testMode: '1' }));
    expect(sold.status).to.equal(200);
    const row = await stack.distribution.service.db
      .selectFrom('leads')
      .select('is_test')
      .where('id', '=', sold.body.leadId)
      .executeTakeFirstOrThrow();
    expect(row.is_test).to.equal(1);
    const sales = await stack.distribution.service.db
      .selectFrom('sales')
      .selectAll()
      .where('lead_id', '=', sold.body.leadId)
      .execute();
    expect(sales).to.have.length(0);
    const invalid = await stack.post(key, validLeadBody({ testMode: '1', dob: '2015-01-01' }));
    expect(invalid.status).to.equal(400);
    expect(invalid.body.errors).to.have.key('dob');
  });

  it('replays the answer to a retry and refuses a reused clickid', async () => {
    const lead = validLeadBody();
    const first = await stack.post(key, lead);
    const retry = await stack.post(key, lead);
    expect(retry.status).to.equal(200);
    expect(retry.body.leadId).to.equal(first.body.leadId);
    expect(retry.body.price).to.equal(first.body.price);
    const reused = await stack.post(key, { ...lead, firstName: 'Other' });
    expect(reused.status).to.equal(400);
    expect(reused.body.errors).to.have.key('clickid');
  });

  it('answers 429 after 60 requests in a minute, counting invalid ones, with rate-limit headers', async () => {
    const answers = [];
    for (let i = 0; i < 60; i++) {
      answers.push(await stack.post(key, i % 2 === 0 ? validLeadBody() : { price: 'x' }));
    }
    expect(answers.map((answer) => answer.status)).to.satisfy((codes: number[]) =>
      codes.every((code) => code === 200 || code === 400),
    );
    expect(answers[0]!.headers.get('ratelimit-policy')).to.equal('"default";q=60;w=60');
    expect(answers[58]!.headers.get('ratelimit')).to.equal('"default";r=1;t=0');
    expect(answers[59]!.headers.get('ratelimit')).to.match(/^"default";r=0;t=([1-9]|[1-5][0-9]|60)$/);
    const limited = await stack.post(key, validLeadBody());
    expect(limited.status).to.equal(429);
    expect(limited.body.status).to.equal('error');
    expect(limited.body.retryAfter).to.be.a('number').and.within(1, 60);
    expect(limited.headers.get('retry-after')).to.equal(String(limited.body.retryAfter));
  });

  it('applies a publisher-specific rate limit', async () => {
    const { key: slowKey } = await stack.distribution.createPublisher(3);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await stack.post(slowKey, validLeadBody())).status);
    expect(codes).to.deep.equal([200, 200, 200, 429]);
  });
});
