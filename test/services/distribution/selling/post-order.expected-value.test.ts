import type { EndpointConfig } from '@leadflow/simulator';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { stackCli } from '../../../support/run-leadflow.js';
import {
  expectBalancedLedger,
  inParallel,
  leadIdOf,
  type Market,
  personLead,
  postsOf,
  simBuyer,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/*
 * One tier of three bidders: a slow buyer bidding $50 whose posts take 1.65 s and are seldom accepted,
 * and two fast ones bidding $30 and $25 that answer in 0.4 s and accept half their posts. With a 2 s
 * budget, walking the offers in price order spends the time on the slow buyer and leaves too little
 * for a fast one's post; the learned figures say so, and the expected-value order posts the fast ones
 * first.
 */
const MARKET: EndpointConfig[] = [
  { path: '/slow-rich/ping', kind: 'ping', bid: { fixed: 50 } },
  { path: '/slow-rich/post', kind: 'post', ping: '/slow-rich/ping', acceptRate: 0.15, latencyMs: { fixed: 1650 } },
  { path: '/fast-a/ping', kind: 'ping', bid: { fixed: 30 } },
  { path: '/fast-a/post', kind: 'post', ping: '/fast-a/ping', acceptRate: 0.5, latencyMs: { fixed: 400 } },
  { path: '/fast-b/ping', kind: 'ping', bid: { fixed: 25 } },
  { path: '/fast-b/post', kind: 'post', ping: '/fast-b/ping', acceptRate: 0.5, latencyMs: { fixed: 400 } },
];

const LEADS = 24;
const AT_ONCE = 4;
// The order of posts is under test, not the auction's timing: a window and ping timeouts roomy enough that a
// loaded machine's slow pings still bring their bids (the default window, 15% of the budget, is 300 ms).
const PING_WINDOW_MS = 600;
const SHORT_BUDGET = { LEADFLOW_SELL_DEADLINE_MS: '2000', LEADFLOW_PING_WINDOW_MS: String(PING_WINDOW_MS) };

async function applyMarket(market: Market, seed: number): Promise<Record<string, string>> {
  const simulator = await market.simulate(MARKET, seed);
  return market.apply([
    simBuyer('slow-rich', simulator.url, {
      ping: '/slow-rich/ping',
      post: '/slow-rich/post',
      timeoutMs: 1900,
      pingTimeoutMs: PING_WINDOW_MS,
    }),
    simBuyer('fast-a', simulator.url, {
      ping: '/fast-a/ping',
      post: '/fast-a/post',
      timeoutMs: 800,
      pingTimeoutMs: PING_WINDOW_MS,
    }),
    simBuyer('fast-b', simulator.url, {
      ping: '/fast-b/ping',
      post: '/fast-b/post',
      timeoutMs: 800,
      pingTimeoutMs: PING_WINDOW_MS,
    }),
  ]);
}

/** Sells a batch of leads through `stack` as `key`'s publisher; the lead ids and the revenue (charges) in cents. */
async function sellBatch(
  market: Market,
  stack: TestDistribution,
  key: string,
  count: number,
): Promise<{ leadIds: string[]; revenueCents: number }> {
  const answers = await inParallel(count, AT_ONCE, () => stack.submit(key, personLead()));
  const leadIds = answers.map(leadIdOf);
  const sales = await expectBalancedLedger(market.db, leadIds);
  return { leadIds, revenueCents: sales.reduce((sum, sale) => sum + sale.charge_cents, 0) };
}

/** The buyers posted to, in order, for each lead. */
async function postOrders(
  market: Market,
  leadIds: readonly string[],
  names: Record<string, string>,
): Promise<string[][]> {
  const nameOf = new Map(Object.entries(names).map(([name, id]) => [id, name]));
  return Promise.all(
    leadIds.map(async (leadId) => postsOf(await market.attempts(leadId)).map((post) => nameOf.get(post.buyer_id)!)),
  );
}

// Two instances on one store side by side: MySQL, as several instances are deployed (one embedded SQLite
// data directory serves one instance).
describeEachDatabase(
  'selling: deadline-aware expected-value post order',
  (database) => {
    const market = useMarket(database, { env: SHORT_BUDGET });

    it('with a 2 s budget, sells more than the plain price order by posting the fast likely buyers before the slow rich one', async () => {
      const ids = await applyMarket(market(), 11);
      const priceOrdered = await startTestDistribution(database(), {
        env: { ...SHORT_BUDGET, LEADFLOW_POST_ORDER: 'price' },
      });
      try {
        const publisher = await priceOrdered.createPublisher(1_000_000);
        const plain = await sellBatch(market(), priceOrdered, publisher.key, LEADS);
        const learning = await sellBatch(market(), market().stack, market().key, LEADS);

        // Price order: every lead posted goes to the slow buyer first, and then there is no time for another
        // post. A lead whose bids all came after the ping window (a loaded machine) is posted to no one.
        const plainOrders = await postOrders(market(), plain.leadIds, ids);
        const posted = plainOrders.filter((order) => order.length > 0);
        expect(posted.length, JSON.stringify(plainOrders)).to.be.at.least(LEADS - AT_ONCE);
        for (const order of posted) expect(order).to.deep.equal(['slow-rich']);
        // Expected value: once the slow buyer's figures are learned, the fast buyers are posted first.
        const orders = await postOrders(market(), learning.leadIds, ids);
        const fastFirst = orders.filter((order) => order[0] !== 'slow-rich').length;
        expect(fastFirst, JSON.stringify(orders)).to.be.at.least(LEADS - 2 * AT_ONCE);
        expect(
          learning.revenueCents,
          `expected value ${learning.revenueCents}, price order ${plain.revenueCents}`,
        ).to.be.above(plain.revenueCents * 1.5);
      } finally {
        await priceOrdered.close();
      }
    });

    it('with a 10 s budget, posts in plain price order, on an instance that starts with the figures others learned', async () => {
      const ids = await applyMarket(market(), 12);
      // The slow buyer's figures are learned on the suite's instance, from posts in price order.
      await sellBatch(market(), market().stack, market().key, 6);
      const patient = await startTestDistribution(database(), { env: { LEADFLOW_SELL_DEADLINE_MS: '10000' } });
      try {
        const shown = await stackCli(patient).json('buyer', 'show', ids['slow-rich']!);
        expect(shown.summary.learned.posts, 'figures read from storage at start').to.be.at.least(6);
        // `--json` writes a Duration as the proto JSON mapping does: "1.910s".
        expect(Number.parseFloat(shown.summary.learned.p50Latency) * 1000).to.be.within(1600, 1900);
        expect(shown.summary.learned.acceptRate).to.be.below(0.5);

        const publisher = await patient.createPublisher(1_000_000);
        const batch = await sellBatch(market(), patient, publisher.key, 8);
        for (const order of await postOrders(market(), batch.leadIds, ids)) {
          expect(['slow-rich', 'fast-a', 'fast-b'].slice(0, order.length), 'a prefix of the price order').to.deep.equal(
            order,
          );
          expect(order[0]).to.equal('slow-rich');
        }
      } finally {
        await patient.close();
      }
    });

    it('shows the learned figures in leadflow buyer show and in the metrics', async () => {
      const ids = await applyMarket(market(), 13);
      await sellBatch(market(), market().stack, market().key, 6);
      const cli = stackCli(market().stack);
      const text = await cli.leadflow(['buyer', 'show', 'slow-rich']);
      expect(text.stdout).to.match(
        /^learned:\s+\d+% accepted \(prior \d+%, \d+ of \d+ answered posts\), \d+% unanswered, post p50 1[6-9]\d\d ms, p90 1[6-9]\d\d ms \(\d+ recent posts\)$/m,
      );
      const { summary } = await cli.json('buyer', 'show', ids['fast-a']!);
      expect(summary.learned).to.have.keys([
        'posts',
        'acceptRate',
        'unansweredRate',
        'p50Latency',
        'p90Latency',
        'priorAcceptRate',
        'answeredPosts',
        'acceptedPosts',
      ]);

      const metrics = await (await fetch(`http://127.0.0.1:${market().stack.service.metricsPort}/metrics`)).text();
      const slow = ids['slow-rich']!;
      expect(metrics).to.match(
        new RegExp(
          `^leadflow_buyer_learned_accept_ratio\\{buyer_id="${slow}",buyer_name="slow-rich"\\} 0\\.\\d+$`,
          'm',
        ),
      );
      expect(metrics).to.match(
        new RegExp(
          `^leadflow_buyer_learned_post_latency_seconds\\{buyer_id="${slow}",buyer_name="slow-rich",quantile="0\\.5"\\} 1\\.[6-9]\\d*$`,
          'm',
        ),
      );
      expect(metrics).to.match(
        new RegExp(`^leadflow_buyer_learned_posts\\{buyer_id="${slow}",buyer_name="slow-rich"\\} \\d+$`, 'm'),
      );
    });
  },
  ['mysql'],
);
