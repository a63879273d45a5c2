import { expect } from 'chai';
import { json, type LocalServer, startLocalServer } from '../../../../support/local-server.js';
import { expectBalancedLedger, personLead, soldOf, useMarket } from '../../../../support/selling.js';
import { describeEachDatabase } from '../../../../support/test-database.js';

/*
 * A ping-post buyer that bids $20.00 and then accepts the post naming another price, through a real
 * distribution service and database: what it is charged under each priceChange rule, and that an
 * acceptance it is not sold at still keeps the lead from every other buyer.
 */

const BID = { ok: 'yes', bid: '20.00', id: 'P-1' };

function pingPostBuyer(name: string, url: (path: string) => string, priceChange?: string) {
  return {
    name,
    pricing: { type: 'bid' },
    integration: {
      local: true,
      timeoutMs: 2000,
      ping: {
        url: url('/ping'),
        mapping: { state: 'state' },
        response: { accepted: { path: '$.ok', equals: 'yes' }, price: '$.bid', reference: '$.id' },
      },
      post: {
        url: url('/post'),
        mapping: { ping: 'pingReference', ssn: 'ssn' },
        response: {
          accepted: { path: '$.ok', equals: 'yes' },
          price: '$.price',
          ...(priceChange ? { priceChange } : {}),
        },
      },
    },
  };
}

function fixedBuyer(name: string, url: string) {
  return {
    name,
    tier: 2,
    pricing: { type: 'fixed', price: '5.00' },
    integration: {
      local: true,
      post: { url, mapping: { ssn: 'ssn' }, response: { accepted: { path: '$.ok', equals: 'yes' } } },
    },
  };
}

describeEachDatabase('priceChange: a post accepted at another price than the bid', (database) => {
  const market = useMarket(database);
  let lender: LocalServer;
  let fallback: LocalServer;
  let postPrice: string;
  beforeEach(async () => {
    postPrice = '15.00';
    lender = await startLocalServer((request, response) =>
      json(response, 200, request.path === '/ping' ? BID : { ok: 'yes', price: postPrice }),
    );
    fallback = await startLocalServer((_, response) => json(response, 200, { ok: 'yes' }));
  });
  afterEach(async () => {
    await lender.close();
    await fallback.close();
  });

  const chargeOf = async (leadId: string) =>
    (await expectBalancedLedger(market().db, [leadId])).map((sale) => sale.charge_cents);

  it('charges the lower price by default, and the bid when the answer asks more', async () => {
    const ids = await market().apply([pingPostBuyer('lower-by-default', lender.url)]);
    const sold = soldOf(await market().submit(personLead()));
    expect(sold.buyerId).to.equal(ids['lower-by-default']);
    expect(await chargeOf(sold.leadId)).to.deep.equal([1500]);
    expect(sold.payoutCents, 'the publisher is paid its share of what is charged').to.equal(1200);

    postPrice = '25.00';
    expect(await chargeOf(soldOf(await market().submit(personLead())).leadId)).to.deep.equal([2000]);
  });

  it('charges the bid under use_bid', async () => {
    await market().apply([pingPostBuyer('bid-stands', lender.url, 'use_bid')]);
    expect(await chargeOf(soldOf(await market().submit(personLead())).leadId)).to.deep.equal([2000]);
  });

  it('holds a lead accepted at a lower price under the floor with that buyer, never posting it to the next', async () => {
    const ids = await market().apply([
      pingPostBuyer('under-the-floor', lender.url),
      fixedBuyer('next-tier', fallback.url('/post')),
    ]);
    // The bid's payout (80% of $20.00) meets the $14.00 floor; the answer's (80% of $15.00) does not.
    const answer = await market().submit(personLead({ price: '14.00' }));
    expect(answer.outcome?.$case).to.equal('unconfirmed');
    expect(fallback.requests).to.have.length(0);
    const leadId = answer.outcome?.$case === 'unconfirmed' ? answer.outcome.value.leadId : '';
    const posts = await market()
      .db.selectFrom('lead_posts')
      .select(['buyer_id', 'state'])
      .where('lead_id', '=', leadId)
      .execute();
    expect(posts).to.deep.equal([{ buyer_id: ids['under-the-floor'], state: 'unknown' }]);
  });

  it('under reject sells to nobody: the lead is held unconfirmed for this buyer, never posted to the next', async () => {
    const ids = await market().apply([
      pingPostBuyer('refuses-changes', lender.url, 'reject'),
      fixedBuyer('next-tier', fallback.url('/post')),
    ]);
    const answer = await market().submit(personLead());
    expect(answer.outcome?.$case).to.equal('unconfirmed');
    expect(fallback.requests, 'the next buyer never gets a lead another holds').to.have.length(0);
    const leadId = answer.outcome?.$case === 'unconfirmed' ? answer.outcome.value.leadId : '';
    expect(await market().count('sales', { column: 'lead_id', value: leadId })).to.equal(0);
    const posts = await market()
      .db.selectFrom('lead_posts')
      .select(['buyer_id', 'state'])
      .where('lead_id', '=', leadId)
      .execute();
    expect(posts).to.deep.equal([{ buyer_id: ids['refuses-changes'], state: 'unknown' }]);

    postPrice = '20.00';
    const agreed = soldOf(await market().submit(personLead()));
    expect(agreed.buyerId, 'an answer at the bid is a sale under reject too').to.equal(ids['refuses-changes']);
  });
});
