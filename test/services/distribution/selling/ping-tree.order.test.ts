import type { EndpointConfig } from '@leadflow/simulator';
import { expect } from 'chai';
import {
  endpointStats,
  expectPostsInOrder,
  personLead,
  postsOf,
  rowsOf,
  simBuyer,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('selling: tier order and best bid, simulated buyers over HTTP', (database) => {
  const market = useMarket(database);

  describe('tier order', () => {
    const endpoints = (tier1AcceptRate: number): EndpointConfig[] => [
      { path: '/tier1/post', kind: 'direct_post', price: { fixed: 15 }, acceptRate: tier1AcceptRate },
      { path: '/tier2/ping', kind: 'ping', bid: { fixed: 60 } },
      { path: '/tier2/post', kind: 'post', ping: '/tier2/ping' },
      { path: '/tier2-direct/post', kind: 'direct_post', price: { fixed: 50 } },
    ];

    it('does not try a better-paying tier-2 buyer while a tier-1 buyer buys', async () => {
      const { simulate, apply, submit, attempts } = market();
      const simulator = await simulate(endpoints(1));
      const ids = await apply([
        simBuyer('t1-fixed', simulator.url, {
          post: '/tier1/post',
          tier: 1,
          pricing: { type: 'fixed', price: '15.00' },
        }),
        simBuyer('t2-bidder', simulator.url, { ping: '/tier2/ping', post: '/tier2/post', tier: 2 }),
        simBuyer('t2-fixed', simulator.url, {
          post: '/tier2-direct/post',
          tier: 2,
          pricing: { type: 'fixed', price: '50.00' },
        }),
      ]);

      for (let i = 0; i < 3; i += 1) {
        const sold = soldOf(await submit(personLead()));
        expect(sold.buyerId).to.equal(ids['t1-fixed']);
        expect(sold.payoutCents).to.equal(1200); // 80% of $15.00
        const trail = await attempts(sold.leadId);
        expect(rowsOf(trail, ids['t2-bidder']!), 'tier 2 bidder: neither pinged nor posted').to.deep.equal([]);
        expect(rowsOf(trail, ids['t2-fixed']!), 'tier 2 direct post: not posted').to.deep.equal([]);
      }
      expect(endpointStats(simulator, '/tier1/post').posts).to.equal(3);
      expect(endpointStats(simulator, '/tier2/ping').pings).to.equal(0);
      expect(endpointStats(simulator, '/tier2/post').posts).to.equal(0);
      expect(endpointStats(simulator, '/tier2-direct/post').posts).to.equal(0);
    });

    it('goes to tier 2 when tier 1 declines, and there to the best offer', async () => {
      const { simulate, apply, submit, attempts, db } = market();
      const simulator = await simulate(endpoints(0));
      const ids = await apply([
        simBuyer('t1-decliner', simulator.url, {
          post: '/tier1/post',
          tier: 1,
          pricing: { type: 'fixed', price: '15.00' },
        }),
        simBuyer('t2-bidder-b', simulator.url, { ping: '/tier2/ping', post: '/tier2/post', tier: 2 }),
        simBuyer('t2-fixed-b', simulator.url, {
          post: '/tier2-direct/post',
          tier: 2,
          pricing: { type: 'fixed', price: '50.00' },
        }),
      ]);

      const sold = soldOf(await submit(personLead()));
      expect(sold.buyerId).to.equal(ids['t2-bidder-b']);
      expect(sold.payoutCents).to.equal(4800); // 80% of the $60.00 bid
      const trail = await attempts(sold.leadId);
      expectPostsInOrder(trail, [
        [ids['t1-decliner']!, 'rejected'],
        [ids['t2-bidder-b']!, 'accepted'],
      ]);
      const [tier1Post, tier2Ping] = [
        postsOf(trail, ids['t1-decliner']!)[0]!,
        rowsOf(trail, ids['t2-bidder-b']!).find((row) => row.kind === 'ping')!,
      ];
      expect(tier2Ping.started_at, 'tier 2 is pinged only after tier 1 turned the lead down').to.be.at.least(
        tier1Post.started_at,
      );
      expect(tier2Ping).to.include({ outcome: 'accepted', bid_cents: 6000 });
      const sale = await db
        .selectFrom('sales')
        .selectAll()
        .where('lead_id', '=', sold.leadId)
        .executeTakeFirstOrThrow();
      expect(sale).to.include({
        buyer_id: ids['t2-bidder-b'],
        charge_cents: 6000,
        payout_cents: 4800,
        margin_cents: 1200,
      });
      expect(endpointStats(simulator, '/tier2-direct/post').posts).to.equal(0);
    });
  });

  describe('best bid wins', () => {
    /** Three ping-post bidders at fixed bids and a fixed-price direct post, all in tier 1. */
    const endpoints = (acceptRates: { b35: number; d30: number }): EndpointConfig[] => [
      { path: '/a20/ping', kind: 'ping', bid: { fixed: 20 } },
      { path: '/a20/post', kind: 'post', ping: '/a20/ping' },
      { path: '/b35/ping', kind: 'ping', bid: { fixed: 35 }, format: 'xml' },
      { path: '/b35/post', kind: 'post', ping: '/b35/ping', format: 'xml', acceptRate: acceptRates.b35 },
      { path: '/c28/ping', kind: 'ping', bid: { fixed: 28 }, format: 'text' },
      { path: '/c28/post', kind: 'post', ping: '/c28/ping', format: 'text' },
      { path: '/d30/post', kind: 'direct_post', price: { fixed: 30 }, acceptRate: acceptRates.d30 },
    ];
    const buyers = (url: string, suffix: string) => [
      simBuyer(`a20-${suffix}`, url, { ping: '/a20/ping', post: '/a20/post' }),
      simBuyer(`b35-${suffix}`, url, { ping: '/b35/ping', post: '/b35/post', format: 'xml' }),
      simBuyer(`c28-${suffix}`, url, { ping: '/c28/ping', post: '/c28/post', format: 'text' }),
      simBuyer(`d30-${suffix}`, url, { post: '/d30/post', pricing: { type: 'fixed', price: '30.00' } }),
    ];

    it('posts to the highest bid only, after pinging every bidder of the tier', async () => {
      const { simulate, apply, submit, attempts, db } = market();
      const simulator = await simulate(endpoints({ b35: 1, d30: 1 }));
      const ids = await apply(buyers(simulator.url, 'best'));

      const sold = soldOf(await submit(personLead()));
      expect(sold.buyerId).to.equal(ids['b35-best']);
      expect(sold.payoutCents).to.equal(2800);
      const trail = await attempts(sold.leadId);
      const bids = trail.filter((row) => row.kind === 'ping').map((row) => [row.buyer_id, row.bid_cents]);
      expect(bids).to.have.deep.members([
        [ids['a20-best'], 2000],
        [ids['b35-best'], 3500],
        [ids['c28-best'], 2800],
      ]);
      expect(postsOf(trail).map((post) => [post.buyer_id, post.outcome, post.price_cents])).to.deep.equal([
        [ids['b35-best'], 'accepted', 3500],
      ]);
      const sale = await db
        .selectFrom('sales')
        .selectAll()
        .where('lead_id', '=', sold.leadId)
        .executeTakeFirstOrThrow();
      expect(sale).to.include({ charge_cents: 3500, payout_cents: 2800 });
      for (const path of ['/a20/post', '/c28/post', '/d30/post'])
        expect(endpointStats(simulator, path).posts, path).to.equal(0);
      expect(endpointStats(simulator, '/b35/post')).to.include({
        posts: 1,
        accepted: 1,
        acceptedCents: 3500,
        unmatchedPosts: 0,
      });
    });

    it('goes down the offers in price order, fixed-price direct posts ranked with the bids', async () => {
      const { simulate, apply, submit, attempts } = market();
      const simulator = await simulate(endpoints({ b35: 0, d30: 1 }));
      const ids = await apply(buyers(simulator.url, 'next'));

      // $35 bid declines its post: next is the $30 direct post, ahead of the $28 and $20 bids.
      const sold = soldOf(await submit(personLead()));
      expect(sold.buyerId).to.equal(ids['d30-next']);
      expect(sold.payoutCents).to.equal(2400);
      const trail = await attempts(sold.leadId);
      expectPostsInOrder(trail, [
        [ids['b35-next']!, 'rejected'],
        [ids['d30-next']!, 'accepted'],
      ]);

      // The direct post declines as well: the $28 bid, ahead of the $20 one.
      simulator.configure(endpoints({ b35: 0, d30: 0 }));
      const third = soldOf(await submit(personLead()));
      expect(third.buyerId).to.equal(ids['c28-next']);
      expect(third.payoutCents).to.equal(2240);
      const thirdTrail = await attempts(third.leadId);
      expectPostsInOrder(thirdTrail, [
        [ids['b35-next']!, 'rejected'],
        [ids['d30-next']!, 'rejected'],
        [ids['c28-next']!, 'accepted'],
      ]);
      expect(postsOf(thirdTrail, ids['a20-next']!)).to.deep.equal([]);
      expect(endpointStats(simulator, '/a20/post').posts).to.equal(0);
      expect(endpointStats(simulator, '/c28/post')).to.include({ accepted: 1, acceptedCents: 2800, unmatchedPosts: 0 });
    });
  });
});
