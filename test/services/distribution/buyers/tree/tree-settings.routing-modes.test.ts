import { expect } from 'chai';
import { startTestDistribution } from '../../../../support/distribution.js';
import { expectBalancedLedger, personLead, postsOf, simBuyer, soldOf, useMarket } from '../../../../support/selling.js';
import { describeEachDatabase } from '../../../../support/test-database.js';

/*
 * Three tiers of bidders, each answering at once. Tier 1's best bid is $5.59; tier 2 holds the best
 * bid of all, $8.28, from a buyer that turns every post down, and a $4.00 bidder that accepts; tier 3
 * bids $7.00. Each routing mode sells the lead to a different buyer.
 */
// Two instances on one store side by side: MySQL, as several instances are deployed (one embedded SQLite
// data directory serves one instance).
describeEachDatabase(
  'selling: routing modes (LEADFLOW_ROUTING_MODE)',
  (database) => {
    const market = useMarket(database);

    async function applyTiers(tree?: Record<string, unknown>): Promise<Record<string, string>> {
      const { simulate, apply } = market();
      const bidder = (name: string, bid: number, acceptRate = 1) => [
        { path: `/${name}/ping`, kind: 'ping' as const, bid: { fixed: bid } },
        { path: `/${name}/post`, kind: 'post' as const, ping: `/${name}/ping`, acceptRate },
      ];
      const simulator = await simulate([
        ...bidder('t1-low', 5.59),
        ...bidder('t2-high', 8.28, 0),
        ...bidder('t2-other', 4),
        ...bidder('t3-mid', 7),
      ]);
      const entry = (name: string, tier: number) =>
        simBuyer(name, simulator.url, { ping: `/${name}/ping`, post: `/${name}/post`, tier });
      return apply([entry('t1-low', 1), entry('t2-high', 2), entry('t2-other', 2), entry('t3-mid', 3)], tree);
    }

    /** The buyer that bought a lead sold through a service in `mode`, and the buyers it pinged and posted to. */
    async function sellIn(mode: 'strict_tiers' | 'price_groups' | 'auction', ids: Record<string, string>) {
      const nameOf = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
      const stack = await startTestDistribution(database(), { env: { LEADFLOW_ROUTING_MODE: mode } });
      try {
        const publisher = await stack.createPublisher(1_000_000);
        const sold = soldOf(await stack.submit(publisher.key, personLead()));
        await expectBalancedLedger(market().db, [sold.leadId]);
        const trail = await market().attempts(sold.leadId);
        return {
          buyer: nameOf.get(sold.buyerId),
          pinged: trail
            .filter((row) => row.kind === 'ping')
            .map((row) => nameOf.get(row.buyer_id))
            .sort(),
          posted: postsOf(trail).map((row) => nameOf.get(row.buyer_id)),
        };
      } finally {
        await stack.close();
      }
    }

    it('strict_tiers (the default): tier 1 sells before tier 2 is even pinged', async () => {
      const ids = await applyTiers();
      expect(await sellIn('strict_tiers', ids)).to.deep.equal({
        buyer: 't1-low',
        pinged: ['t1-low'],
        posted: ['t1-low'],
      });
    });

    it('price_groups: every tier pinged at once; the tier with the best bid is posted to first, all of it', async () => {
      const ids = await applyTiers();
      expect(await sellIn('price_groups', ids)).to.deep.equal({
        buyer: 't2-other',
        pinged: ['t1-low', 't2-high', 't2-other', 't3-mid'],
        posted: ['t2-high', 't2-other'],
      });
    });

    it('auction: every tier pinged at once and every offer ranked together', async () => {
      const ids = await applyTiers();
      expect(await sellIn('auction', ids)).to.deep.equal({
        buyer: 't3-mid',
        pinged: ['t1-low', 't2-high', 't2-other', 't3-mid'],
        posted: ['t2-high', 't3-mid'],
      });
    });

    describe("the buyers document's tree", () => {
      afterEach(() => market().apply([], {}));

      it('sets the mode over the environment; a document without a tree leaves it, `tree: {}` hands it back', async () => {
        let ids = await applyTiers({ routing: 'auction' });
        expect((await sellIn('strict_tiers', ids)).buyer, 'the document over the environment').to.equal('t3-mid');
        ids = await applyTiers();
        expect((await sellIn('price_groups', ids)).buyer, 'a document without a tree').to.equal('t3-mid');
        ids = await applyTiers({});
        expect((await sellIn('price_groups', ids)).buyer, 'the environment again').to.equal('t2-other');
      });

      it('reaches a running instance within a second, without a restart', async () => {
        const ids = await applyTiers();
        const nameOf = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
        const stack = await startTestDistribution(database(), { env: { LEADFLOW_ROUTING_MODE: 'strict_tiers' } });
        try {
          const publisher = await stack.createPublisher(1_000_000);
          const buyerOf = async () => nameOf.get(soldOf(await stack.submit(publisher.key, personLead())).buyerId);
          expect(await buyerOf()).to.equal('t1-low');
          await market().apply([], { routing: 'auction' });
          await new Promise((resolve) => setTimeout(resolve, 1100));
          expect(await buyerOf()).to.equal('t3-mid');
        } finally {
          await stack.close();
        }
      });
    });

    it('refuses an unknown mode at start, naming the variable', async () => {
      let error: unknown;
      try {
        await startTestDistribution(database(), { env: { LEADFLOW_ROUTING_MODE: 'waterfall' } });
      } catch (caught) {
        error = caught;
      }
      expect(String(error)).to.include('LEADFLOW_ROUTING_MODE must be one of strict_tiers, price_groups, auction');
    });
  },
  ['mysql'],
);
