import { setTimeout as sleep } from 'node:timers/promises';
import type { Simulator } from '@leadflow/simulator';
import { expect } from 'chai';
import {
  endpointStats,
  expectBalancedLedger,
  expectPostsInOrder,
  personLead,
  simBuyer,
  skipReasons,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';
import { waitUntil } from '../../../support/wait-until.js';

const DEADLINE_MS = 1500;
/** What a loaded machine may add on top of the deadline: recording the outcome, gRPC, scheduling. */
const SLACK_MS = 500;

/** The simulator decides a post after its latency even when the client has given up: waits for that. */
async function acceptedAt(simulator: Simulator, path: string, expected: number): Promise<number> {
  for (let tries = 0; tries < 60 && endpointStats(simulator, path).accepted < expected; tries += 1) await sleep(50);
  return endpointStats(simulator, path).accepted;
}

describeEachDatabase(`selling: posts use the time there is (LEADFLOW_SELL_DEADLINE_MS=${DEADLINE_MS})`, (database) => {
  const market = useMarket(database, { env: { LEADFLOW_SELL_DEADLINE_MS: String(DEADLINE_MS) } });

  // First: no post has taught the tree anything yet.
  it('in a new tree, posts a buyer even with less than half its post timeout left, and sells to it', async () => {
    const { simulate, apply, attempts } = market();
    const simulator = await simulate([
      { path: '/patient/post', kind: 'direct_post', price: { fixed: 45 }, latencyMs: { fixed: 200 } },
    ]);
    // Half its timeout is more than the whole budget: no rule of thumb would ever let it be posted.
    const ids = await apply([
      simBuyer('patient', simulator.url, {
        post: '/patient/post',
        timeoutMs: 2 * DEADLINE_MS + 500,
        pricing: { type: 'fixed', price: '45.00' },
      }),
    ]);

    const sold = soldOf(await market().submit(personLead()));
    expect(sold.buyerId).to.equal(ids.patient);
    expectPostsInOrder(await attempts(sold.leadId), [[ids.patient!, 'accepted']]);
  });

  it('posts to a slow buyer whose whole post timeout does not fit but a useful part does, and sells to it', async () => {
    const { simulate, apply, timed, attempts, db } = market();
    const simulator = await simulate([
      { path: '/slow/post', kind: 'direct_post', price: { fixed: 60 }, latencyMs: { fixed: 600 } },
      { path: '/quick/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await apply([
      simBuyer('slow', simulator.url, {
        post: '/slow/post',
        timeoutMs: 2500,
        pricing: { type: 'fixed', price: '60.00' },
      }),
      simBuyer('quick', simulator.url, {
        post: '/quick/post',
        timeoutMs: 300,
        pricing: { type: 'fixed', price: '20.00' },
      }),
    ]);

    const { answer, ms } = await timed(personLead());
    const sold = soldOf(answer);
    expect(sold.buyerId).to.equal(ids.slow);
    expect(ms).to.be.below(DEADLINE_MS + SLACK_MS);
    expectPostsInOrder(await attempts(sold.leadId), [[ids.slow!, 'accepted']]);
    expect(endpointStats(simulator, '/quick/post').posts).to.equal(0);
    expect(await acceptedAt(simulator, '/slow/post', 1)).to.equal(1);
    await expectBalancedLedger(db, [sold.leadId]);
  });

  it('holds a lead whose post the deadline cut short for that buyer: unconfirmed, never posted to another, sold once on its late answer', async () => {
    const { simulate, apply, submit, attempts, count } = market();
    const simulator = await simulate([
      { path: '/declines/post', kind: 'direct_post', price: { fixed: 70 }, acceptRate: 0, latencyMs: { fixed: 500 } },
      { path: '/slow/post', kind: 'direct_post', price: { fixed: 50 }, latencyMs: { fixed: 1400 } },
      { path: '/quick/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await apply([
      simBuyer('declines', simulator.url, {
        post: '/declines/post',
        timeoutMs: 700,
        pricing: { type: 'fixed', price: '70.00' },
      }),
      // Posted with about 1000 ms left: over half its 1600 ms timeout, less than its 1400 ms answer.
      simBuyer('slow', simulator.url, {
        post: '/slow/post',
        timeoutMs: 1600,
        pricing: { type: 'fixed', price: '50.00' },
      }),
      simBuyer('quick', simulator.url, {
        post: '/quick/post',
        timeoutMs: 300,
        pricing: { type: 'fixed', price: '20.00' },
      }),
    ]);

    const answer = await submit(personLead());
    expect(answer.outcome?.$case).to.equal('unconfirmed');
    const leadId = answer.outcome?.$case === 'unconfirmed' ? answer.outcome.value.leadId : '';
    const trail = await attempts(leadId);
    expectPostsInOrder(trail, [
      [ids.declines!, 'rejected'],
      [ids.slow!, 'unknown'],
    ]);
    expect(skipReasons(trail, ids.quick!)).to.deep.equal([]);
    expect(endpointStats(simulator, '/quick/post').posts, 'no other buyer got the lead').to.equal(0);
    expect(await acceptedAt(simulator, '/slow/post', 1), 'the buyer accepted it, once').to.equal(1);
    // The post stays open to the buyer's own timeout: its acceptance, come after the publisher's answer,
    // settles the held lead as sold, once.
    await waitUntil('the late answer sold the lead', async () => {
      return (await count('sales', { column: 'lead_id', value: leadId })) === 1;
    });
    const lead = await market()
      .db.selectFrom('leads')
      .select('status')
      .where('id', '=', leadId)
      .executeTakeFirstOrThrow();
    expect(lead.status).to.equal('sold');
    expect(endpointStats(simulator, '/quick/post').posts, 'still no other buyer got the lead').to.equal(0);
  });
});
