import { expect } from 'chai';
import {
  endpointStats,
  expectBalancedLedger,
  personLead,
  rejectedOf,
  rowsOf,
  simBuyer,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const DEADLINE_MS = 4000;

describeEachDatabase('selling: a bid answered after the ping window, while posts are still going out', (database) => {
  const market = useMarket(database, { env: { LEADFLOW_SELL_DEADLINE_MS: String(DEADLINE_MS) } });
  afterEach(() => market().apply([], {}));

  /**
   * One tier, a 100 ms window: a quick $10 bidder whose post declines after 700 ms, and a $30 bidder
   * whose bid comes at 350 ms, while the $10 post is out. Ids by name.
   */
  async function tierWithLateBid(richBuyer: Record<string, unknown> = {}): Promise<Record<string, string>> {
    const { simulate, apply } = market();
    const simulator = await simulate([
      { path: '/quick/ping', kind: 'ping', bid: { fixed: 10 }, latencyMs: { fixed: 10 } },
      { path: '/quick/post', kind: 'post', ping: '/quick/ping', acceptRate: 0, latencyMs: { fixed: 700 } },
      { path: '/rich/ping', kind: 'ping', bid: { fixed: 30 }, latencyMs: { fixed: 350 } },
      { path: '/rich/post', kind: 'post', ping: '/rich/ping' },
    ]);
    const bidder = (name: string, extra: Record<string, unknown> = {}) =>
      simBuyer(name, simulator.url, {
        ping: `/${name}/ping`,
        post: `/${name}/post`,
        pingTimeoutMs: 1500,
        postTimeoutMs: 1500,
        ...extra,
      });
    return apply([bidder('quick'), bidder('rich', richBuyer)], { pingWindowMs: 100 });
  }

  it('posts the late bid once the post that was out declines, and says in the audit trail that it joined late', async () => {
    const ids = await tierWithLateBid();
    const { submit, attempts, db } = market();
    const sold = soldOf(await submit(personLead()));
    expect(sold.buyerId, 'the $30 bid that came while the $10 post was out').to.equal(ids.rich);
    const trail = await attempts(sold.leadId);
    expect(rowsOf(trail, ids.rich!).map((row) => [row.kind, row.outcome, row.reason])).to.deep.equal([
      ['ping', 'accepted', 'answered after the ping window: joined the offers still to post'],
      ['post', 'accepted', null],
    ]);
    expect(rowsOf(trail, ids.quick!).map((row) => [row.kind, row.outcome])).to.deep.equal([
      ['ping', 'accepted'],
      ['post', 'rejected'],
    ]);
    await expectBalancedLedger(db, [sold.leadId]);
  });

  it('holds a late bid to the checks of any other: below the floor it is not posted', async () => {
    const ids = await tierWithLateBid({ payout: { fixed: '1.00' } });
    const { submit, attempts } = market();
    // The quick bid is declined, and the late one pays the publisher less than the lead's price.
    const { leadId } = rejectedOf(await submit(personLead({ price: '5.00' })));
    const trail = await attempts(leadId);
    expect(rowsOf(trail, ids.rich!).map((row) => [row.kind, row.reason])).to.deep.equal([
      ['ping', 'answered after the ping window: joined the offers still to post'],
      ['skip', 'floor'],
    ]);
  });

  it('does not use a bid that comes after the sale has ended', async () => {
    const { simulate, apply, submit, attempts } = market();
    const simulator = await simulate([
      { path: '/quick/ping', kind: 'ping', bid: { fixed: 10 }, latencyMs: { fixed: 10 } },
      { path: '/quick/post', kind: 'post', ping: '/quick/ping' },
      { path: '/rich/ping', kind: 'ping', bid: { fixed: 30 }, latencyMs: { fixed: 400 } },
      { path: '/rich/post', kind: 'post', ping: '/rich/ping' },
    ]);
    const bidder = (name: string) =>
      simBuyer(name, simulator.url, { ping: `/${name}/ping`, post: `/${name}/post`, pingTimeoutMs: 1500 });
    const ids = await apply([bidder('quick'), bidder('rich')], { pingWindowMs: 100 });
    const sold = soldOf(await submit(personLead()));
    expect(sold.buyerId).to.equal(ids.quick);
    let rich = rowsOf(await attempts(sold.leadId), ids.rich!);
    for (let tries = 0; tries < 40 && rich.length === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rich = rowsOf(await attempts(sold.leadId), ids.rich!);
    }
    expect(rich.map((row) => [row.kind, row.outcome, row.reason])).to.deep.equal([
      ['ping', 'accepted', 'answered after the ping window: not used, the sale had ended'],
    ]);
    expect(endpointStats(simulator, '/rich/post').posts).to.equal(0);
  });

  it("in strict tiers, does not take a tier's late bid back once the sale has moved on to the next tier", async () => {
    const { simulate, apply, submit, attempts } = market();
    const simulator = await simulate([
      { path: '/quick/ping', kind: 'ping', bid: { fixed: 10 }, latencyMs: { fixed: 10 } },
      { path: '/quick/post', kind: 'post', ping: '/quick/ping', acceptRate: 0, latencyMs: { fixed: 20 } },
      { path: '/rich/ping', kind: 'ping', bid: { fixed: 30 }, latencyMs: { fixed: 400 } },
      { path: '/rich/post', kind: 'post', ping: '/rich/ping' },
      { path: '/next/post', kind: 'direct_post', price: { fixed: 5 }, latencyMs: { fixed: 700 } },
    ]);
    const bidder = (name: string) =>
      simBuyer(name, simulator.url, { ping: `/${name}/ping`, post: `/${name}/post`, pingTimeoutMs: 1500 });
    const ids = await apply(
      [
        bidder('quick'),
        bidder('rich'),
        simBuyer('next', simulator.url, { post: '/next/post', tier: 2, pricing: { type: 'fixed', price: '5.00' } }),
      ],
      { pingWindowMs: 100 },
    );
    const sold = soldOf(await submit(personLead()));
    expect(sold.buyerId, "tier 2's post was out when the tier 1 bid came").to.equal(ids.next);
    expect(rowsOf(await attempts(sold.leadId), ids.rich!).map((row) => [row.kind, row.reason])).to.deep.equal([
      ['ping', "answered after the ping window: not used, its tier's posts were over"],
    ]);
    expect(endpointStats(simulator, '/rich/post').posts).to.equal(0);
  });
});
