import { expect } from 'chai';
import {
  endpointStats,
  type Market,
  personLead,
  simBuyer,
  skipReasons,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('selling: test mode leaves caps, ledger and duplicate history untouched', (database) => {
  const market = useMarket(database);

  async function booksOf(m: Market, buyerId: string) {
    const counters = await m.db
      .selectFrom('buyer_cap_counters')
      .select(['period', 'leads', 'spend_cents'])
      .where('buyer_id', '=', buyerId)
      .execute();
    const sales = await m.db.selectFrom('sales').select('lead_id').where('buyer_id', '=', buyerId).execute();
    const ledger = await m.db
      .selectFrom('ledger_entries')
      .select('lead_id')
      .where('account', '=', `buyer:${buyerId}`)
      .execute();
    return {
      countedLeads: counters.reduce((sum, row) => sum + row.leads, 0),
      countedSpend: counters.reduce((sum, row) => sum + row.spend_cents, 0),
      sales: sales.map((sale) => sale.lead_id),
      ledger: ledger.map((entry) => entry.lead_id),
    };
  }

  const testLead = (overrides: Record<string, unknown> = {}) => personLead({ testMode: '1', ...overrides });

  it('sells test leads through test_url without a sale row, ledger entries or cap counters, and without the live URLs', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/live/ping', kind: 'ping', bid: { fixed: 30 } },
      { path: '/live/post', kind: 'post', ping: '/live/ping' },
      { path: '/sandbox/ping', kind: 'ping', bid: { fixed: 25 } },
      { path: '/sandbox/post', kind: 'post', ping: '/sandbox/ping' },
    ]);
    const ids = await m.apply([
      simBuyer('sandboxed', simulator.url, {
        ping: '/live/ping',
        post: '/live/post',
        testBehaviour: 'test_url',
        testPing: '/sandbox/ping',
        testPost: '/sandbox/post',
        caps: { leadsPerHour: 2, spendPerDay: '60.00' },
        duplicates: { lookbackDays: 30 },
      }),
    ]);
    const buyerId = ids.sandboxed!;

    // Five test leads of one person, beyond the cap of two and the $60.00 budget: every one sells.
    const person = personLead();
    for (let i = 0; i < 5; i += 1) {
      const sold = soldOf(await m.submit({ ...person, clickid: `${person.clickid}-t${i}`, testMode: '1' }));
      expect(sold.buyerId).to.equal(buyerId);
      expect(sold.payoutCents).to.equal(2000);
    }
    expect(await booksOf(m, buyerId)).to.deep.equal({ countedLeads: 0, countedSpend: 0, sales: [], ledger: [] });
    expect(endpointStats(simulator, '/sandbox/post').accepted).to.equal(5);
    expect(endpointStats(simulator, '/live/ping').pings).to.equal(0);
    expect(endpointStats(simulator, '/live/post').posts).to.equal(0);

    // The same person live: no duplicate from the test leads, full caps, a sale on the books.
    const live = soldOf(await m.submit(person));
    expect(live.buyerId).to.equal(buyerId);
    expect(skipReasons(await m.attempts(live.leadId), buyerId)).to.deep.equal([]);
    const books = await booksOf(m, buyerId);
    expect(books.sales).to.deep.equal([live.leadId]);
    expect(books.ledger).to.deep.equal([live.leadId]);
    // One lead against the hour and the day counters, $30.00 against both.
    expect(books.countedLeads).to.equal(2);
    expect(books.countedSpend).to.equal(2 * 3000);
  });

  it('sells test leads with testBehaviour accept without any call and without touching the books', async () => {
    const m = market();
    const simulator = await m.simulate([{ path: '/quiet/post', kind: 'direct_post', price: { fixed: 30 } }]);
    const ids = await m.apply([
      simBuyer('accepts-tests', simulator.url, {
        post: '/quiet/post',
        testBehaviour: 'accept',
        caps: { leadsPerHour: 1, leadsPerDay: 1, leadsPerMonth: 1, spendPerDay: '30.00' },
        duplicates: { lookbackDays: 30, includeRejected: true },
        pricing: { type: 'fixed', price: '30.00' },
      }),
    ]);
    const buyerId = ids['accepts-tests']!;
    for (let i = 0; i < 4; i += 1) expect(soldOf(await m.submit(testLead())).buyerId).to.equal(buyerId);
    expect(endpointStats(simulator, '/quiet/post').posts).to.equal(0);
    expect(await booksOf(m, buyerId)).to.deep.equal({ countedLeads: 0, countedSpend: 0, sales: [], ledger: [] });
    expect(await m.count('buyer_cap_counters', { column: 'buyer_id', value: buyerId })).to.equal(0);
    // Its one-lead caps are still whole for a live lead.
    expect(soldOf(await m.submit(personLead())).buyerId).to.equal(buyerId);
  });

  it('sells test leads to a fixed-price ping-post buyer whose testBehaviour is accept (the default) without calling it', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/pp-live/ping', kind: 'ping', bid: { fixed: 30 } },
      { path: '/pp-live/post', kind: 'post', ping: '/pp-live/ping' },
    ]);
    const ids = await m.apply([
      simBuyer('ping-post-accepts-tests', simulator.url, {
        ping: '/pp-live/ping',
        post: '/pp-live/post',
        testBehaviour: 'accept',
        pricing: { type: 'fixed', price: '30.00' },
      }),
    ]);
    const answer = await m.submit(testLead());
    expect(answer.outcome?.$case, `answer ${JSON.stringify(answer.outcome)}`).to.equal('sold');
    expect(soldOf(answer).buyerId).to.equal(ids['ping-post-accepts-tests']);
    expect(endpointStats(simulator, '/pp-live/ping').pings).to.equal(0);
    expect(await m.count('sales', { column: 'buyer_id', value: ids['ping-post-accepts-tests']! })).to.equal(0);
  });
});
