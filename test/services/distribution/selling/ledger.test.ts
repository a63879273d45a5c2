import type { SubmitLeadResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { sql } from 'kysely';
import {
  endpointStats,
  expectBalancedLedger,
  inParallel,
  leadIdOf,
  personLead,
  postsOf,
  simBuyer,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('selling: the ledger', (database) => {
  const market = useMarket(database);

  it('balances to the cent after a batch of live leads to a mixed market', async () => {
    const m = market();
    const other = await m.createPublisher(6500);
    const simulator = await m.simulate(
      [
        { path: '/bids-json/ping', kind: 'ping', bid: { uniform: [12, 45] }, acceptRate: 0.8 },
        { path: '/bids-json/post', kind: 'post', ping: '/bids-json/ping', acceptRate: 0.7 },
        {
          path: '/bids-xml/ping',
          kind: 'ping',
          bid: { normal: { mean: 25, sd: 8, min: 10, max: 50 } },
          format: 'xml',
          acceptRate: 0.8,
        },
        { path: '/bids-xml/post', kind: 'post', ping: '/bids-xml/ping', format: 'xml', acceptRate: 0.7 },
        { path: '/by-state/post', kind: 'direct_post', price: { fixed: 1 }, format: 'text', acceptRate: 0.6 },
        { path: '/backstop/post', kind: 'direct_post', price: { fixed: 1 } },
      ],
      99,
    );
    const ids = await m.apply([
      simBuyer('bids-json', simulator.url, {
        ping: '/bids-json/ping',
        post: '/bids-json/post',
        payout: { revenueShare: 0.75 },
      }),
      simBuyer('bids-xml', simulator.url, { ping: '/bids-xml/ping', post: '/bids-xml/post', format: 'xml' }),
      simBuyer('by-state', simulator.url, {
        post: '/by-state/post',
        format: 'text',
        pricing: {
          type: 'rules',
          default: '19.99',
          rules: [
            { when: { field: 'state', equals: 'CA' }, price: '33.33' },
            { when: { field: 'state', in: ['TX', 'FL'] }, price: '27.77' },
          ],
        },
        payout: { fixed: '11.11', publishers: { [other.id]: { revenueShare: 0.6 } } },
      }),
      simBuyer('backstop', simulator.url, {
        post: '/backstop/post',
        tier: 2,
        pricing: { type: 'fixed', price: '13.37' },
        payout: { revenueShare: 0.7 },
      }),
    ]);

    const states = [
      { state: 'CA', zip: '94102' },
      { state: 'TX', zip: '73301' },
      { state: 'NY', zip: '10001' },
      { state: 'FL', zip: '33101' },
    ];
    const floors = ['1.00', '4.50', '8.00', '9.99'];
    const sent = await inParallel(48, 8, async (i) => {
      const publisher = i % 3 === 0 ? other : { id: m.publisherId, key: m.key };
      const body = personLead({ ...states[i % states.length], price: floors[i % floors.length] });
      return { publisher, body, answer: await m.submit(body, publisher.key) };
    });

    const leadIds = sent.map(({ answer }) => leadIdOf(answer));
    const sales = await expectBalancedLedger(m.db, leadIds);
    const soldAnswers = sent.filter(({ answer }) => answer.outcome?.$case === 'sold');
    expect(sales).to.have.length(soldAnswers.length);
    expect(sales.length, 'most leads sell').to.be.at.least(24);

    // Each sale at the price and payout its buyer's terms give, worked out here from the file.
    const share = (cents: number, bps: number) => Math.floor((cents * bps) / 10_000);
    for (const { publisher, body, answer } of soldAnswers) {
      const sold = soldOf(answer as SubmitLeadResponse);
      const sale = sales.find((row) => row.lead_id === sold.leadId)!;
      const trail = await m.attempts(sold.leadId);
      const publisherShare = publisher.id === other.id ? 6500 : 8000;
      let charge: number;
      let payout: number;
      if (sale.buyer_id === ids['bids-json'] || sale.buyer_id === ids['bids-xml']) {
        charge = trail.find((row) => row.kind === 'ping' && row.buyer_id === sale.buyer_id)!.bid_cents!;
        payout = share(charge, sale.buyer_id === ids['bids-json'] ? 7500 : publisherShare);
      } else if (sale.buyer_id === ids['by-state']) {
        charge = { CA: 3333, TX: 2777, FL: 2777 }[body.state as string] ?? 1999;
        payout = publisher.id === other.id ? share(charge, 6000) : 1111;
      } else {
        expect(sale.buyer_id).to.equal(ids.backstop);
        charge = 1337;
        payout = share(1337, 7000);
      }
      expect(sale, sold.leadId).to.include({
        charge_cents: charge,
        payout_cents: payout,
        margin_cents: charge - payout,
        publisher_id: publisher.id,
      });
      expect(sold.payoutCents, 'the publisher is told its payout').to.equal(payout);
      expect(payout, 'at least the floor').to.be.at.least(Math.round(Number(body.price) * 100));
      expect(postsOf(trail).find((post) => post.outcome === 'accepted')).to.include({
        buyer_id: sale.buyer_id,
        price_cents: charge,
      });
    }

    // The bidders' own books: what the simulator accepted is what leadflow charged them.
    for (const name of ['bids-json', 'bids-xml']) {
      const charged = sales
        .filter((sale) => sale.buyer_id === ids[name])
        .reduce((sum, sale) => sum + sale.charge_cents, 0);
      expect(endpointStats(simulator, `/${name}/post`).acceptedCents, name).to.equal(charged);
    }

    // And the database's own sums agree with the sales table.
    const ledgerSums = await m.db
      .selectFrom('ledger_entries')
      .select(['entry_type', sql<string>`sum(amount_cents)`.as('total')])
      .where('lead_id', 'in', leadIds)
      .groupBy('entry_type')
      .execute();
    const salesSums = await m.db
      .selectFrom('sales')
      .select([
        sql<string>`sum(charge_cents)`.as('charged'),
        sql<string>`sum(payout_cents)`.as('paid'),
        sql<string>`sum(margin_cents)`.as('kept'),
      ])
      .where('lead_id', 'in', leadIds)
      .executeTakeFirstOrThrow();
    const byType = Object.fromEntries(ledgerSums.map((row) => [row.entry_type, Number(row.total)]));
    expect(byType).to.deep.equal({
      buyer_charge: -Number(salesSums.charged),
      publisher_payout: Number(salesSums.paid),
      platform_margin: Number(salesSums.kept),
    });
  });

  describe('a retried lead is never charged twice', () => {
    it('answers a retry with the stored sale and writes one sale and one set of entries', async () => {
      const { simulate, apply, submit, db } = market();
      const simulator = await simulate([{ path: '/retry/post', kind: 'direct_post', price: { fixed: 25 } }]);
      const ids = await apply([
        simBuyer('retry-buyer', simulator.url, { post: '/retry/post', pricing: { type: 'fixed', price: '25.00' } }),
      ]);

      const body = personLead();
      const first = await submit(body);
      const retries = [];
      for (let i = 0; i < 3; i += 1) retries.push(await submit(body));
      const sold = soldOf(first);
      expect(sold.buyerId).to.equal(ids['retry-buyer']);
      for (const retry of retries) {
        expect(retry.replayed).to.equal(true);
        expect(retry.outcome).to.deep.equal(first.outcome);
      }
      const sales = await expectBalancedLedger(db, [sold.leadId]);
      expect(sales).to.have.length(1);
      expect(
        await db.selectFrom('ledger_entries').select('id').where('lead_id', '=', sold.leadId).execute(),
      ).to.have.length(3);
      expect(endpointStats(simulator, '/retry/post').posts).to.equal(1);
    });

    it('gives 20 concurrent copies of a lead one sale, one set of entries and one buyer call', async () => {
      const { simulate, apply, submit, db } = market();
      const simulator = await simulate([
        { path: '/retry-ping/ping', kind: 'ping', bid: { fixed: 31.17 }, latencyMs: { fixed: 100 } },
        { path: '/retry-ping/post', kind: 'post', ping: '/retry-ping/ping', latencyMs: { fixed: 100 } },
      ]);
      const ids = await apply([
        simBuyer('retry-bidder', simulator.url, { ping: '/retry-ping/ping', post: '/retry-ping/post' }),
      ]);

      const body = personLead();
      // Whether every copy gets an answer rather than an error is the next test's business; here: one charge.
      const copies = await Promise.allSettled(Array.from({ length: 20 }, () => submit(body)));
      const answers = copies.flatMap((copy) => (copy.status === 'fulfilled' ? [copy.value] : []));
      expect(answers.length, 'copies answered').to.be.at.least(15);
      const leadIds = new Set(answers.map(leadIdOf));
      expect(leadIds.size).to.equal(1);
      const sold = soldOf(answers[0]!);
      expect(sold).to.include({ buyerId: ids['retry-bidder'], payoutCents: 2493 });
      for (const answer of answers) expect(answer.outcome).to.deep.equal(answers[0]!.outcome);
      expect(answers.filter((answer) => !answer.replayed)).to.have.length(1);
      const sales = await expectBalancedLedger(db, [sold.leadId]);
      expect(sales.map((sale) => sale.charge_cents)).to.deep.equal([3117]);
      expect(
        await db
          .selectFrom('sales')
          .select('id')
          .where('publisher_id', '=', sales[0]!.publisher_id)
          .where('buyer_id', '=', ids['retry-bidder']!)
          .execute(),
      ).to.have.length(1);
      expect(
        await db.selectFrom('ledger_entries').select('id').where('lead_id', '=', sold.leadId).execute(),
      ).to.have.length(3);
      expect(
        await db
          .selectFrom('leads')
          .select('id')
          .where('clickid', '=', body.clickid as string)
          .execute(),
      ).to.have.length(1);
      expect(endpointStats(simulator, '/retry-ping/ping').pings).to.equal(1);
      expect(endpointStats(simulator, '/retry-ping/post')).to.include({ posts: 1, accepted: 1 });
    });

    it('answers every copy of leads retried in bursts (20 copies a few milliseconds apart, 30 leads) with the one sale', async () => {
      const { simulate, apply, submit, db } = market();
      const simulator = await simulate([{ path: '/burst/post', kind: 'direct_post', price: { fixed: 22.22 } }]);
      const ids = await apply([
        simBuyer('burst-buyer', simulator.url, { post: '/burst/post', pricing: { type: 'bid' } }),
      ]);

      const failures: string[] = [];
      const leadIds: string[] = [];
      for (let round = 0; round < 30; round += 1) {
        const body = personLead();
        // A publisher's client retrying on its own timer: copies arrive 0 to 6 ms apart.
        const copies = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            new Promise((resolve) => setTimeout(resolve, (i % 4) * (round % 3))).then(() => submit(body)),
          ),
        );
        for (const copy of copies)
          if (copy.status === 'rejected') failures.push(`lead ${round}: ${String(copy.reason)}`);
        const answers = copies.flatMap((copy) => (copy.status === 'fulfilled' ? [copy.value] : []));
        const sold = answers.map(soldOf);
        expect(new Set(sold.map((value) => value.leadId)).size, `lead ${round}: one lead`).to.equal(1);
        expect(sold.every((value) => value.buyerId === ids['burst-buyer'])).to.equal(true);
        leadIds.push(sold[0]!.leadId);
      }
      expect(failures, 'copies answered with an error instead of the sale').to.deep.equal([]);
      const sales = await expectBalancedLedger(db, leadIds);
      expect(sales).to.have.length(30);
      expect(endpointStats(simulator, '/burst/post')).to.include({ posts: 30, accepted: 30, acceptedCents: 30 * 2222 });
    });
  });
});
