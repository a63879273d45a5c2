import { type EndpointConfig, FAULT_KINDS, type FaultKind } from '@leadflow/simulator';
import { expect } from 'chai';
import {
  endpointStats,
  expectPostsInOrder,
  personLead,
  postsOf,
  type ReplyFormat,
  rejectedOf,
  rowsOf,
  simBuyer,
  skipReasons,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const DEADLINE_MS = 1500;
/** What a loaded machine may add on top of the deadline: recording the outcome, gRPC, scheduling. */
const SLACK_MS = 500;

describeEachDatabase(`selling: one deadline per lead (LEADFLOW_SELL_DEADLINE_MS=${DEADLINE_MS})`, (database) => {
  const market = useMarket(database, { env: { LEADFLOW_SELL_DEADLINE_MS: String(DEADLINE_MS) } });
  /**
   * A first lead teaches the tree how fast its buyers post (a new tree judges a buyer by its timeout),
   * and the tree's figures are worked out again at most every second.
   */
  const learnTheTree = async () => {
    await market().submit(personLead());
    await new Promise((resolve) => setTimeout(resolve, 1100));
  };

  it('never waits for hanging bidders past the ping window: sells to an offer in hand, and records the late pings', async () => {
    const { simulate, apply, timed, attempts, db } = market();
    const simulator = await simulate([
      { path: '/hang-a/ping', kind: 'ping', bid: { fixed: 50 }, errors: { hang: 1 } },
      { path: '/hang-a/post', kind: 'post', ping: '/hang-a/ping' },
      { path: '/hang-b/ping', kind: 'ping', bid: { fixed: 45 }, errors: { hang: 1 } },
      { path: '/hang-b/post', kind: 'post', ping: '/hang-b/ping' },
      { path: '/direct/post', kind: 'direct_post', price: { fixed: 40 } },
      { path: '/tier2/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await apply([
      simBuyer('hang-a', simulator.url, { ping: '/hang-a/ping', post: '/hang-a/post', timeoutMs: 1000 }),
      simBuyer('hang-b', simulator.url, { ping: '/hang-b/ping', post: '/hang-b/post', timeoutMs: 1000 }),
      simBuyer('after-pings', simulator.url, {
        post: '/direct/post',
        timeoutMs: 1000,
        pricing: { type: 'fixed', price: '40.00' },
      }),
      simBuyer('tier-two', simulator.url, {
        post: '/tier2/post',
        tier: 2,
        timeoutMs: 1000,
        pricing: { type: 'fixed', price: '20.00' },
      }),
    ]);

    const { answer, ms } = await timed(personLead());
    const sold = soldOf(answer);
    // The window is 15% of the 1500 ms budget: the direct post's 1000 ms timeout still fits after it.
    expect(sold.buyerId).to.equal(ids['after-pings']);
    expect(ms, 'did not wait for the hanging pings').to.be.below(1000);
    expect(endpointStats(simulator, '/tier2/post').posts).to.equal(0);
    // The hanging pings end at their 1000 ms timeout, after the answer: the audit trail keeps them.
    let trail = await attempts(sold.leadId);
    for (let tries = 0; tries < 40 && trail.filter((row) => row.kind === 'ping').length < 2; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      trail = await attempts(sold.leadId);
    }
    for (const bidder of ['hang-a', 'hang-b']) {
      expect(
        rowsOf(trail, ids[bidder]!).map((row) => [row.kind, row.outcome, row.reason]),
        bidder,
      ).to.deep.equal([['ping', 'timeout', 'answered after the ping window: not used, the sale had ended']]);
    }
    const lead = await db
      .selectFrom('leads')
      .select(['status', 'processing_ms'])
      .where('id', '=', sold.leadId)
      .executeTakeFirstOrThrow();
    expect(lead.status).to.equal('sold');
    expect(lead.processing_ms).to.be.below(DEADLINE_MS);
  });

  it("posts a richer offer new to the tree, whose timeout is long, when the time left carries the tree's posts", async () => {
    const { simulate, apply, timed, attempts } = market();
    const simulator = await simulate([
      { path: '/bidder/ping', kind: 'ping', bid: { fixed: 50 }, latencyMs: { fixed: 100 } },
      { path: '/bidder/post', kind: 'post', ping: '/bidder/ping' },
      { path: '/patient/post', kind: 'direct_post', price: { fixed: 60 } },
    ]);
    const ids = await apply([
      simBuyer('bidder', simulator.url, {
        ping: '/bidder/ping',
        post: '/bidder/post',
        timeoutMs: 3000,
        pingTimeoutMs: 400,
        postTimeoutMs: 900,
      }),
      // Not half its timeout is left once the ping is back; half the budget is, and so is the tree's
      // median post (call-timing.ts): a long timeout alone says nothing of how fast it answers.
      simBuyer('patient', simulator.url, {
        post: '/patient/post',
        timeoutMs: 3000,
        pricing: { type: 'fixed', price: '60.00' },
      }),
    ]);
    await learnTheTree();
    const { answer, ms } = await timed(personLead());
    const sold = soldOf(answer);
    expect(ms).to.be.below(DEADLINE_MS + SLACK_MS);
    expect(sold.buyerId).to.equal(ids.patient);
    const trail = await attempts(sold.leadId);
    expect(skipReasons(trail, ids.patient!)).to.deep.equal([]);
    expectPostsInOrder(trail, [[ids.patient!, 'accepted']]);
  });

  it('after a post that hangs at a buyer whose timeout counts as a decline, posts the next buyer, new to the tree, with less than half its timeout left, and sells to it', async () => {
    const { simulate, apply, timed, attempts } = market();
    const simulator = await simulate([
      { path: '/hangs/post', kind: 'direct_post', price: { fixed: 40 }, errors: { hang: 1 } },
      { path: '/slow-timeout/post', kind: 'direct_post', price: { fixed: 35 } },
      { path: '/quick/post', kind: 'direct_post', price: { fixed: 30 } },
    ]);
    const ids = await apply([
      simBuyer('hangs', simulator.url, {
        post: '/hangs/post',
        timeoutMs: 600,
        onTimeout: 'decline',
        pricing: { type: 'fixed', price: '40.00' },
      }),
      simBuyer('slow-timeout', simulator.url, {
        post: '/slow-timeout/post',
        timeoutMs: 2000,
        pricing: { type: 'fixed', price: '35.00' },
      }),
      simBuyer('quick', simulator.url, {
        post: '/quick/post',
        timeoutMs: 300,
        pricing: { type: 'fixed', price: '30.00' },
      }),
    ]);

    await learnTheTree();
    const { answer, ms } = await timed(personLead());
    const sold = soldOf(answer);
    expect(ms).to.be.below(DEADLINE_MS + SLACK_MS);
    expect(sold.buyerId).to.equal(ids['slow-timeout']);
    const trail = await attempts(sold.leadId);
    expectPostsInOrder(trail, [
      [ids.hangs!, 'timeout'],
      [ids['slow-timeout']!, 'accepted'],
    ]);
    expect(rowsOf(trail, ids.quick!)).to.deep.equal([]);
  });

  it('never pings a bidder when not half its ping timeout fits in the whole deadline', async () => {
    const { simulate, apply, submit, attempts } = market();
    const simulator = await simulate([
      { path: '/patient/ping', kind: 'ping', bid: { fixed: 90 } },
      { path: '/patient/post', kind: 'post', ping: '/patient/ping' },
      { path: '/patient-direct/post', kind: 'direct_post', price: { fixed: 80 } },
      { path: '/normal/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await apply([
      simBuyer('patient', simulator.url, {
        ping: '/patient/ping',
        post: '/patient/post',
        timeoutMs: 2 * DEADLINE_MS + 500,
      }),
      simBuyer('patient-direct', simulator.url, {
        post: '/patient-direct/post',
        timeoutMs: 2 * DEADLINE_MS + 500,
        pricing: { type: 'fixed', price: '80.00' },
      }),
      simBuyer('normal', simulator.url, {
        post: '/normal/post',
        timeoutMs: 500,
        pricing: { type: 'fixed', price: '20.00' },
      }),
    ]);

    const sold = soldOf(await submit(personLead()));
    // A post, unlike a ping, is tried with what the tree's posts take (or half the budget in a new tree).
    expect(sold.buyerId).to.equal(ids['patient-direct']);
    const trail = await attempts(sold.leadId);
    expect(skipReasons(trail, ids.patient!)).to.deep.equal(['deadline']);
    expect(endpointStats(simulator, '/patient/ping').pings).to.equal(0);
    expect(endpointStats(simulator, '/normal/post').posts).to.equal(0);
  });
});

describeEachDatabase('selling: timeouts and garbage are never a sale', (database) => {
  const market = useMarket(database);
  const FORMATS: ReplyFormat[] = ['json', 'xml', 'text'];
  const HANG_TIMEOUT_MS = 400;

  it('never sells on a 5xx, hang, reset, HTML, truncated or garbage reply, in any reply format, to a post or a ping (timeouts counted as declines)', async () => {
    const { simulate, apply, submit, attempts, db, count } = market();
    const faulty: { name: string; fault: FaultKind; format: ReplyFormat; where: 'direct' | 'ping' | 'post' }[] = [];
    for (const fault of FAULT_KINDS) {
      for (const format of FORMATS) faulty.push({ name: `direct-${fault}-${format}`, fault, format, where: 'direct' });
      faulty.push({ name: `ping-${fault}`, fault, format: 'json', where: 'ping' });
      faulty.push({ name: `pingpost-${fault}`, fault, format: 'xml', where: 'post' });
    }
    const endpoints: EndpointConfig[] = [{ path: '/backup/post', kind: 'direct_post', price: { fixed: 5 } }];
    for (const { name, fault, format, where } of faulty) {
      const errors = { [fault]: 1 };
      if (where === 'direct')
        endpoints.push({ path: `/${name}/post`, kind: 'direct_post', price: { fixed: 30 }, format, errors });
      else {
        endpoints.push({
          path: `/${name}/ping`,
          kind: 'ping',
          bid: { fixed: 30 },
          format,
          ...(where === 'ping' && { errors }),
        });
        endpoints.push({
          path: `/${name}/post`,
          kind: 'post',
          ping: `/${name}/ping`,
          format,
          ...(where === 'post' && { errors }),
        });
      }
    }
    const simulator = await simulate(endpoints);
    const ids = await apply([
      // Every faulty buyer outbids the backup, whose tier comes last.
      ...faulty.map(({ name, format, where }) =>
        simBuyer(name, simulator.url, {
          post: `/${name}/post`,
          ...(where !== 'direct' && { ping: `/${name}/ping` }),
          format,
          timeoutMs: HANG_TIMEOUT_MS,
          // Else a hang or a cut connection holds the lead for that buyer: see sale-protocol.test.ts.
          onTimeout: 'decline',
          pricing: where === 'direct' ? { type: 'fixed', price: '30.00' } : { type: 'bid' },
        }),
      ),
      simBuyer('backup', simulator.url, { post: '/backup/post', tier: 2, pricing: { type: 'fixed', price: '5.00' } }),
    ]);

    const sold = soldOf(await submit(personLead()));
    expect(sold.buyerId, 'only the sound backup buys').to.equal(ids.backup);
    const trail = await attempts(sold.leadId);
    for (const { name, fault, where } of faulty) {
      const rows = rowsOf(trail, ids[name]!);
      const failed = fault === 'hang' ? 'timeout' : 'error';
      if (where === 'direct')
        expect(
          rows.map((row) => [row.kind, row.outcome]),
          name,
        ).to.deep.equal([['post', failed]]);
      if (where === 'ping') {
        expect(
          rows.map((row) => [row.kind, row.outcome, row.bid_cents]),
          name,
        ).to.deep.equal([['ping', failed, null]]);
        expect(
          endpointStats(simulator, `/${name}/post`).posts,
          `${name}: a failed ping is no bid, nothing posted`,
        ).to.equal(0);
      }
      if (where === 'post') {
        expect(
          rows.map((row) => [row.kind, row.outcome]),
          name,
        ).to.deep.equal([
          ['ping', 'accepted'],
          ['post', failed],
        ]);
      }
      expect(
        rows.every((row) => row.price_cents === null),
        `${name}: no price recorded`,
      ).to.equal(true);
      expect(
        endpointStats(simulator, where === 'ping' ? `/${name}/ping` : `/${name}/post`).errors[fault],
        `${name}: the fault was served`,
      ).to.equal(1);
    }
    expect(
      postsOf(trail)
        .filter((post) => post.outcome === 'accepted')
        .map((post) => post.buyer_id),
    ).to.deep.equal([ids.backup]);
    const sales = await db
      .selectFrom('sales')
      .select(['buyer_id', 'charge_cents'])
      .where('lead_id', '=', sold.leadId)
      .execute();
    expect(sales).to.deep.equal([{ buyer_id: ids.backup, charge_cents: 500 }]);
    expect(await count('ledger_entries', { column: 'lead_id', value: sold.leadId })).to.equal(3);
  });

  it('rejects the lead when every buyer fails and each counts a timeout as a decline', async () => {
    const { simulate, apply, submit, attempts, count } = market();
    const endpoints: EndpointConfig[] = FAULT_KINDS.map((fault) => ({
      path: `/only-${fault}/post`,
      kind: 'direct_post',
      price: { fixed: 25 },
      errors: { [fault]: 1 },
    }));
    const simulator = await simulate(endpoints);
    const ids = await apply(
      FAULT_KINDS.map((fault) =>
        simBuyer(`only-${fault}`, simulator.url, {
          post: `/only-${fault}/post`,
          timeoutMs: HANG_TIMEOUT_MS,
          onTimeout: 'decline',
          pricing: { type: 'fixed', price: '25.00' },
        }),
      ),
    );

    const rejected = rejectedOf(await submit(personLead()));
    expect(rejected.reason).to.equal('No buyer accepted the lead');
    const trail = await attempts(rejected.leadId);
    const outcomes = Object.fromEntries(
      FAULT_KINDS.map((fault) => [fault, postsOf(trail, ids[`only-${fault}`]!).map((post) => post.outcome)]),
    );
    expect(outcomes).to.deep.equal({
      status500: ['error'],
      status503: ['error'],
      hang: ['timeout'],
      reset: ['error'],
      html: ['error'],
      truncated: ['error'],
      garbage: ['error'],
    });
    expect(postsOf(trail, ids['only-status503']!)[0]!.http_status).to.equal(503);
    expect(await count('sales', { column: 'lead_id', value: rejected.leadId })).to.equal(0);
    expect(await count('ledger_entries', { column: 'lead_id', value: rejected.leadId })).to.equal(0);
  });
});
