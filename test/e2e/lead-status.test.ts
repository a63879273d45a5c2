import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { bearer, call } from '../support/grpc.js';
import { personLead } from '../support/selling.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { describeEachDatabase } from '../support/test-database.js';

/*
 * A publisher's client, written from docs/http-api.md with plain fetch, asks for its leads' outcomes:
 * through a real gateway, a real distribution service and a real buyer over HTTP.
 */

const RATE_LIMIT = 12;

describeEachDatabase('a publisher asks for its lead by clickid', (database) => {
  let stack: TestStack;
  let buyer: TestBuyerServer;
  let publisher: { id: string; key: string };

  before(async () => {
    stack = await startTestStack(database());
    buyer = await startBuyerServer();
    publisher = await stack.distribution.createPublisher(RATE_LIMIT);
    await stack.distribution.applyBuyers([
      testBuyer('status-buyer', buyer.url('/buy'), {
        integration: { timeoutMs: 300 },
        returns: { windowDays: 7, reasons: ['fraud'] },
      }),
    ]);
  });
  after(async () => {
    await buyer?.close();
    await stack?.close();
  });

  async function leadStatus(key: string, clickid: string) {
    const response = await fetch(`${stack.baseUrl}/api/intake/${key}/leads/${encodeURIComponent(clickid)}`);
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  it("answers sold, rejected and pending (held) in the intake answer's shape, with no personal field", async () => {
    buyer.behave('/buy', { kind: 'accept', redirectUrl: 'https://lender.example/go' });
    const sold = personLead({ clickid: `sold-${Date.now()}` });
    const soldAnswer = await stack.post(publisher.key, sold);
    expect(soldAnswer.body.status).to.equal('sold');

    buyer.behave('/buy', { kind: 'reject', reason: 'not interested' });
    const rejected = personLead({ clickid: `rejected-${Date.now()}` });
    const rejectedAnswer = await stack.post(publisher.key, rejected);
    expect(rejectedAnswer.body.status).to.equal('rejected');

    buyer.behave('/buy', { kind: 'hang' });
    const held = personLead({ clickid: `held/${Date.now()}?#` });
    const heldAnswer = await stack.post(publisher.key, held);
    expect(heldAnswer.body.status).to.equal('rejected');

    const soldStatus = await leadStatus(publisher.key, sold.clickid as string);
    expect(soldStatus.status).to.equal(200);
    const { processingTime, ...soldRest } = soldStatus.body;
    expect(processingTime).to.be.a('number');
    expect(soldRest).to.deep.equal({
      leadId: soldAnswer.body.leadId,
      status: 'sold',
      price: soldAnswer.body.price,
      redirectUrl: 'https://lender.example/go',
      buyerId: soldAnswer.body.buyerId,
    });
    expect(soldStatus.headers.get('ratelimit-policy')).to.equal(`"default";q=${RATE_LIMIT};w=60`);

    const rejectedStatus = await leadStatus(publisher.key, rejected.clickid as string);
    expect(rejectedStatus.status).to.equal(200);
    expect(rejectedStatus.body).to.include({ leadId: rejectedAnswer.body.leadId, status: 'rejected' });
    expect(rejectedStatus.body.reason).to.equal(rejectedAnswer.body.reason);

    const heldStatus = await leadStatus(publisher.key, held.clickid as string);
    expect(heldStatus.status).to.equal(200);
    expect(heldStatus.body).to.include({ leadId: heldAnswer.body.leadId, status: 'pending' });
    expect(heldStatus.body.reason).to.match(/held until the buyer confirms/);

    const text = JSON.stringify([soldStatus.body, rejectedStatus.body, heldStatus.body]);
    for (const personal of [sold.ssn, sold.email, sold.firstName, sold.bankAccountNumber, sold.cellPhone]) {
      expect(text).not.to.include(personal as string);
    }
  });

  it("answers 404 with the JSON error body for an unknown clickid and for another publisher's lead", async () => {
    buyer.behave('/buy', { kind: 'reject' });
    const theirs = await stack.distribution.createPublisher();
    const theirLead = personLead();
    expect((await stack.post(theirs.key, theirLead)).status).to.equal(200);

    const unknown = await leadStatus(publisher.key, 'never-sent');
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ status: 'error', message: 'Not found' });

    const notMine = await leadStatus(publisher.key, theirLead.clickid as string);
    expect(notMine.status).to.equal(404);
    expect(notMine.body).to.deep.equal({ status: 'error', message: 'Not found' });
    expect((await leadStatus(theirs.key, theirLead.clickid as string)).status).to.equal(200);
  });

  it('finds a lead by the longest clickid, every character percent-encoded; a longer one is 404', async () => {
    buyer.behave('/buy', { kind: 'reject' });
    const longest = personLead({ clickid: `${'/'.repeat(64)}${'%'.repeat(63)}${Date.now() % 10}` });
    const answer = await stack.post(publisher.key, longest);
    expect(answer.status).to.equal(200);
    const found = await leadStatus(publisher.key, longest.clickid as string);
    expect(found.status).to.equal(200);
    expect(found.body).to.include({ leadId: answer.body.leadId, status: 'rejected' });

    const tooLong = await leadStatus(publisher.key, 'c'.repeat(3 * 128 + 1));
    expect(tooLong.status).to.equal(404);
    expect(tooLong.body).to.deep.equal({ status: 'error', message: 'Not found' });
    const longKey = await leadStatus('k'.repeat(3 * 128 + 1), 'anything');
    expect(longKey.status).to.equal(401);
    expect(longKey.body).to.deep.equal({ status: 'error', message: 'Unknown or revoked webmaster key' });
  });

  it('finds a lead by its clickid with or without the surrounding whitespace the intake ignored', async () => {
    buyer.behave('/buy', { kind: 'reject' });
    const { key } = await stack.distribution.createPublisher();
    const clickid = `sp-${Date.now()}`;
    const answer = await stack.post(key, personLead({ clickid: ` ${clickid} ` }));
    expect(answer.status).to.equal(200);
    for (const asked of [` ${clickid} `, clickid, `\t${clickid}`]) {
      const found = await leadStatus(key, asked);
      expect(found.status, JSON.stringify(asked)).to.equal(200);
      expect(found.body).to.include({ leadId: answer.body.leadId, status: 'rejected' });
    }
    expect((await leadStatus(key, ` ${clickid}x `)).status).to.equal(404);
  });

  it('answers a returned lead returned, with what the return takes back as the postback says', async () => {
    buyer.behave('/buy', { kind: 'accept' });
    const { key } = await stack.distribution.createPublisher();
    const lead = personLead();
    const sold = await stack.post(key, lead);
    expect(sold.body.status).to.equal('sold');
    const { distribution } = stack;
    await call(
      distribution.admin.returnLead.bind(distribution.admin),
      {
        requestId: `status-${sold.body.leadId}`,
        leadId: sold.body.leadId,
        clickid: '',
        buyer: '',
        reason: 'fraud',
        note: '',
        creditCents: 0,
        dryRun: false,
      },
      bearer(distribution.service.adminToken),
    );

    const returned = await leadStatus(key, lead.clickid as string);
    expect(returned.status).to.equal(200);
    const { processingTime, ...rest } = returned.body;
    expect(processingTime).to.be.a('number');
    // The publisher's clawback is the default, the whole payout: the return takes back the sale's price.
    expect(rest).to.deep.equal({
      leadId: sold.body.leadId,
      status: 'returned',
      price: sold.body.price,
      buyerId: sold.body.buyerId,
      reason: 'fraud',
    });
  });

  it('answers 401 for a revoked or unknown key, as the intake does', async () => {
    const forged = `${publisher.key.slice(0, -4)}AAAA`;
    const answer = await leadStatus(forged, 'anything');
    expect(answer.status).to.equal(401);
    expect(answer.body).to.deep.equal({ status: 'error', message: 'Unknown or revoked webmaster key' });
  });

  it("counts in the publisher's own rate limit, shared with the intake: 429 with retryAfter once it is spent", async () => {
    const limited = await stack.distribution.createPublisher(3);
    buyer.behave('/buy', { kind: 'reject' });
    const lead = personLead();
    expect((await stack.post(limited.key, lead)).status).to.equal(200);
    expect((await leadStatus(limited.key, lead.clickid as string)).status).to.equal(200);
    expect((await leadStatus(limited.key, lead.clickid as string)).status).to.equal(200);
    const refused = await leadStatus(limited.key, lead.clickid as string);
    expect(refused.status).to.equal(429);
    expect(refused.body).to.include({ status: 'error', message: 'Rate limit exceeded' });
    expect(refused.body.retryAfter).to.be.a('number').and.at.least(1);
    expect(refused.headers.get('retry-after')).to.equal(String(refused.body.retryAfter));
    expect((await stack.post(limited.key, personLead())).status, 'the intake shares the spent limit').to.equal(429);
  });
});
