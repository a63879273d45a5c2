import { expect } from 'chai';
import { inParallel, leadIdOf, personLead, rowsOf, simBuyer, soldOf, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const DEADLINE_MS = 4000;

describeEachDatabase('selling: the ping window learned from the bidders (no LEADFLOW_PING_WINDOW_MS)', (database) => {
  const market = useMarket(database, { env: { LEADFLOW_SELL_DEADLINE_MS: String(DEADLINE_MS) } });

  it('waits a new bidder its chance, then only as long as the bidders answer in, whatever one whose pings often hang', async () => {
    const { simulate, apply, submit, attempts, db } = market();
    const simulator = await simulate([
      { path: '/steady/ping', kind: 'ping', bid: { fixed: 20 }, latencyMs: { fixed: 30 } },
      { path: '/steady/post', kind: 'post', ping: '/steady/ping' },
      { path: '/flaky/ping', kind: 'ping', bid: { fixed: 40 }, latencyMs: { fixed: 30 }, errors: { hang: 0.5 } },
      { path: '/flaky/post', kind: 'post', ping: '/flaky/ping' },
    ]);
    const ids = await apply([
      simBuyer('steady', simulator.url, {
        ping: '/steady/ping',
        post: '/steady/post',
        pingTimeoutMs: 1500,
        postTimeoutMs: 1000,
      }),
      simBuyer('flaky', simulator.url, {
        ping: '/flaky/ping',
        post: '/flaky/post',
        pingTimeoutMs: 1500,
        postTimeoutMs: 1000,
      }),
    ]);
    /** processing_ms of each lead whose ping to the flaky bidder hung. */
    const hungLeads = async (leadIds: readonly string[]) => {
      const times: number[] = [];
      for (const leadId of leadIds) {
        const pings = rowsOf(await attempts(leadId), ids.flaky!).filter((row) => row.kind === 'ping');
        if (pings.length > 0 && pings[0]!.outcome === 'accepted') continue;
        const lead = await db
          .selectFrom('leads')
          .select('processing_ms')
          .where('id', '=', leadId)
          .executeTakeFirstOrThrow();
        times.push(lead.processing_ms!);
      }
      return times;
    };

    const sell = async (count: number) => (await inParallel(count, 2, () => submit(personLead()))).map(leadIdOf);
    const learning = await sell(30);
    const learned = await sell(12);

    // Before anything is learned the window is 15% of the budget: the hanging ping holds it.
    const early = await hungLeads(learning.slice(0, 4));
    for (const ms of early) expect(ms, 'a new bidder gets the whole window').to.be.at.least(0.15 * DEADLINE_MS - 100);
    // Once both bidders have answered often enough, the window is what their answers take.
    const late = await hungLeads(learned);
    expect(late.length, 'some pings hung').to.be.at.least(1);
    for (const ms of late) expect(ms, 'the window no longer waits for the hanging ping').to.be.below(500);

    // Operators see what the window waits for.
    const metrics = await (await fetch(`http://127.0.0.1:${market().stack.service.metricsPort}/metrics`)).text();
    for (const name of ['steady', 'flaky']) {
      const line = new RegExp(
        `^leadflow_buyer_learned_ping_latency_seconds\\{buyer_id="${ids[name]}",buyer_name="${name}",quantile="0\\.95"\\} (\\S+)$`,
        'm',
      ).exec(metrics);
      expect(Number(line?.[1]), name).to.be.within(0.02, 0.3);
    }
  });
});

describeEachDatabase('selling: a learned ping window that waits while the bids still out are worth it', (database) => {
  const market = useMarket(database, { env: { LEADFLOW_SELL_DEADLINE_MS: '2000' } });

  it('waits past its share of the time left for a richer bid that usually comes just after it', async () => {
    const { simulate, apply, submit } = market();
    const simulator = await simulate([
      { path: '/quick/ping', kind: 'ping', bid: { fixed: 19.54 }, latencyMs: { fixed: 10 } },
      { path: '/quick/post', kind: 'post', ping: '/quick/ping', latencyMs: { fixed: 20 } },
      // Its bids come at about 340 ms: after the 300 ms that 15% of the 2 s budget gives the window.
      { path: '/rich/ping', kind: 'ping', bid: { fixed: 26.91 }, latencyMs: { uniform: [330, 350] } },
      { path: '/rich/post', kind: 'post', ping: '/rich/ping', latencyMs: { fixed: 20 } },
    ]);
    const bidder = (name: string) =>
      simBuyer(name, simulator.url, {
        ping: `/${name}/ping`,
        post: `/${name}/post`,
        pingTimeoutMs: 1200,
        postTimeoutMs: 1000,
      });
    const ids = await apply([bidder('quick'), bidder('rich')]);
    // Leads enough for both bidders' answer times and bids to be learned.
    await inParallel(12, 2, () => submit(personLead()));
    const buyers = (await inParallel(6, 1, () => submit(personLead()))).map((answer) => soldOf(answer).buyerId);
    expect(buyers, 'the richer bid, once its answer time is learned').to.deep.equal(Array(6).fill(ids.rich));
  });
});

describeEachDatabase("selling: ping windows set by the buyers document's tree, for every tier or one", (database) => {
  const market = useMarket(database, { env: { LEADFLOW_SELL_DEADLINE_MS: String(DEADLINE_MS) } });
  afterEach(() => market().apply([], {}));

  /** One tier of two bidders: a quick $10 one, and a $30 one whose bids take 400 ms; ids by name. */
  async function oneTier(tree: Record<string, unknown>): Promise<Record<string, string>> {
    const { simulate, apply } = market();
    const simulator = await simulate([
      { path: '/quick/ping', kind: 'ping', bid: { fixed: 10 }, latencyMs: { fixed: 20 } },
      { path: '/quick/post', kind: 'post', ping: '/quick/ping' },
      { path: '/slow/ping', kind: 'ping', bid: { fixed: 30 }, latencyMs: { fixed: 400 } },
      { path: '/slow/post', kind: 'post', ping: '/slow/ping' },
    ]);
    const bidder = (name: string) =>
      simBuyer(name, simulator.url, { ping: `/${name}/ping`, post: `/${name}/post`, pingTimeoutMs: 1500 });
    return apply([bidder('quick'), bidder('slow')], tree);
  }

  async function buyerOf(ids: Record<string, string>): Promise<string | undefined> {
    const { buyerId } = soldOf(await market().submit(personLead()));
    return Object.entries(ids).find(([, id]) => id === buyerId)?.[0];
  }

  it("closes the tree's window before a slow bid, and a tier's own window waits for it", async () => {
    const everyTier = await oneTier({ pingWindowMs: 150 });
    expect(await buyerOf(everyTier), 'a 150 ms window: the $30 bid comes too late').to.equal('quick');
    const tierOne = await oneTier({ pingWindowMs: 150, tiers: [{ tier: 1, pingWindowMs: 900 }] });
    expect(await buyerOf(tierOne), "tier 1's own 900 ms window").to.equal('slow');
  });
});
