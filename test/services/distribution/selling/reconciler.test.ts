import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { personLead, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/*
 * The reconciler's settleAfter policy: a lead held for a buyer that never answered its post is closed
 * as not sold once the buyer's settleAfter has passed, and offered to no one else.
 */

const REPLY = { format: 'json', accepted: { path: '$.accepted', equals: 'true' } };

function buyer(name: string, url: string, price: string, tier: number, integration: Record<string, unknown> = {}) {
  return {
    name,
    tier,
    pricing: { type: 'fixed', price },
    caps: { leadsPerDay: 100 },
    integration: {
      mode: 'direct_post',
      local: true,
      timeoutMs: 500,
      ...integration,
      post: { url, mapping: { leadId: 'leadId', email: 'email' }, response: REPLY },
    },
  };
}

describeEachDatabase("the reconciler: a buyer's settleAfter closes the leads it never answered", (database) => {
  const market = useMarket(database, { env: { LEADFLOW_RECONCILE_INTERVAL_MS: '150' } });
  let buyers: TestBuyerServer;
  beforeEach(async () => {
    buyers = await startBuyerServer();
  });
  afterEach(() => buyers.close());

  it('closes the held lead as not sold after settleAfter, gives its holds back, and offers it to no other buyer', async () => {
    const { apply, submit, db } = market();
    buyers.behave('/silent', { kind: 'hang' });
    buyers.behave('/next', { kind: 'accept' });
    const ids = await apply([
      buyer('silent', buyers.url('/silent'), '40.00', 1, { settleAfter: '2s' }),
      buyer('next', buyers.url('/next'), '30.00', 2),
    ]);
    const first = await submit(personLead());
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    const post = () =>
      db
        .selectFrom('lead_posts')
        .select(['state', 'resolved_by'])
        .where('lead_id', '=', leadId)
        .executeTakeFirstOrThrow();
    const lead = () => db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
    expect((await post()).state, 'held while settleAfter has not passed').to.equal('unknown');

    const until = Date.now() + 15_000;
    while ((await lead()).status === 'unconfirmed' && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const row = await lead();
    expect(row.status).to.equal('rejected');
    expect(Date.now() - Number(row.created_at), 'not before settleAfter').to.be.at.least(2000);
    expect(await post()).to.deep.equal({ state: 'rejected', resolved_by: 'settle_after' });
    const holds = await db
      .selectFrom('buyer_cap_counters')
      .select((eb) => eb.fn.sum<number>('leads').as('n'))
      .where('buyer_id', '=', ids.silent!)
      .where('period', 'like', 'd:%')
      .executeTakeFirst();
    expect(Number(holds?.n ?? 0), 'the cap place is given back').to.equal(0);
    expect(await market().count('sales', { column: 'lead_id', value: leadId })).to.equal(0);
    expect(buyers.received('/silent')).to.have.length(1);
    expect(buyers.received('/next'), 'never offered to another buyer').to.have.length(0);
    const metrics = await (await fetch(`http://127.0.0.1:${market().stack.service.metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^leadflow_unconfirmed_lead_oldest_age_seconds \d/m);
  });
});
