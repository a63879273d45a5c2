import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { HeldSyncs } from '../../../support/held-syncs.js';
import { type InMemoryEngine, inMemoryEngine } from '../../../support/in-memory-engine.js';
import { validLeadBody } from '../../../support/leads.js';
import { waitUntil } from '../../../support/wait-until.js';

const accept = () => ({ outcome: 'accepted' as const });
const decline = () => ({ outcome: 'rejected' as const, reason: 'not today' });

describe('the ping tree, in process', () => {
  let engine: InMemoryEngine;
  let key: string;

  beforeEach(async () => {
    engine = await inMemoryEngine();
    key = await engine.publisherKey();
  });

  afterEach(() => engine.close());

  const submit = (overrides: Record<string, unknown> = {}) =>
    engine.intake.submit(
      key,
      Lead.fromPartial(validLeadBody(overrides) as Partial<Lead>),
      [],
      Number.POSITIVE_INFINITY,
    );

  async function attemptsOf(leadId: string) {
    return engine.db
      .selectFrom('buyer_attempts')
      .select(['buyer_id', 'kind', 'outcome', 'reason'])
      .where('lead_id', '=', leadId)
      .orderBy('started_at')
      .execute();
  }

  describe('direct post buyers over tiers', () => {
    let ids: Record<string, string>;

    beforeEach(async () => {
      ids = await engine.applyBuyers('two-tiers');
    });

    it('sells to the first tier when it accepts, without trying the next', async () => {
      engine.buyers.on('https://first-tier.example/leads', accept);
      engine.buyers.on('https://second-tier.example/leads', accept);

      const { outcome } = await submit();

      expect(outcome).to.include({ kind: 'sold', buyerId: ids['first-tier'], payoutCents: 3200 });
      expect(engine.buyers.calls.map((call) => call.url)).to.deep.equal(['https://first-tier.example/leads']);
    });

    it('posts to the next tier when the first declines', async () => {
      engine.buyers.on('https://first-tier.example/leads', decline);
      engine.buyers.on('https://second-tier.example/leads', accept);

      const { outcome } = await submit();

      expect(outcome).to.include({ kind: 'sold', buyerId: ids['second-tier'], payoutCents: 2000 });
      expect(engine.buyers.calls.map((call) => call.url)).to.deep.equal([
        'https://first-tier.example/leads',
        'https://second-tier.example/leads',
      ]);
    });

    it('never calls a buyer whose filter excludes the lead, and records why', async () => {
      engine.buyers.on('https://first-tier.example/leads', accept);
      engine.buyers.on('https://texas-only.example/leads', accept);

      const { outcome } = await submit({ state: 'CA' });

      expect(outcome).to.include({ kind: 'sold', buyerId: ids['first-tier'] });
      expect(engine.buyers.to('https://texas-only.example/leads')).to.have.length(0);
      const attempts = await attemptsOf(outcome.kind === 'sold' ? outcome.leadId : '');
      expect(attempts.find((attempt) => attempt.buyer_id === ids['texas-only'])).to.include({
        kind: 'skip',
        outcome: 'skipped',
        reason: 'filtered',
      });
    });

    it('holds the lead for the buyer when a post is never answered, and posts nowhere else', async () => {
      engine.buyers.on('https://first-tier.example/leads', () => 'timeout');
      engine.buyers.on('https://second-tier.example/leads', accept);

      const { outcome } = await submit();

      expect(outcome.kind).to.equal('unconfirmed');
      expect(engine.buyers.to('https://second-tier.example/leads')).to.have.length(0);
    });

    it('rejects the lead when every buyer declines', async () => {
      engine.buyers.on('https://first-tier.example/leads', decline);
      engine.buyers.on('https://second-tier.example/leads', decline);

      const { outcome } = await submit();

      expect(outcome).to.include({ kind: 'rejected', reason: 'No buyer accepted the lead' });
    });
  });

  describe('ping-post buyers', () => {
    let ids: Record<string, string>;

    beforeEach(async () => {
      ids = await engine.applyBuyers('ping-post-bidders');
    });

    it('pings every buyer of the tier and posts to the highest bid first, with its ping reference', async () => {
      engine.buyers.on('https://low-bidder.example/ping', () => ({
        outcome: 'accepted',
        priceCents: 3000,
        reference: 'low-1',
      }));
      engine.buyers.on('https://high-bidder.example/ping', () => ({
        outcome: 'accepted',
        priceCents: 4500,
        reference: 'high-1',
      }));
      engine.buyers.on('https://high-bidder.example/post', accept);
      engine.buyers.on('https://low-bidder.example/post', accept);

      const { outcome } = await submit();

      expect(outcome).to.include({ kind: 'sold', buyerId: ids['high-bidder'], payoutCents: 3600 });
      expect(engine.buyers.calls.filter((call) => call.kind === 'ping')).to.have.length(2);
      const posts = engine.buyers.calls.filter((call) => call.kind === 'post');
      expect(posts.map((call) => call.url)).to.deep.equal(['https://high-bidder.example/post']);
      expect(posts[0].lead.pingReference).to.equal('high-1');
    });

    it('posts to the lower bid when the higher bidder declines the post', async () => {
      engine.buyers.on('https://low-bidder.example/ping', () => ({
        outcome: 'accepted',
        priceCents: 3000,
        reference: 'low-1',
      }));
      engine.buyers.on('https://high-bidder.example/ping', () => ({
        outcome: 'accepted',
        priceCents: 4500,
        reference: 'high-1',
      }));
      engine.buyers.on('https://high-bidder.example/post', decline);
      engine.buyers.on('https://low-bidder.example/post', accept);

      const { outcome } = await submit();

      expect(outcome).to.include({ kind: 'sold', buyerId: ids['low-bidder'], payoutCents: 2400 });
    });

    it('posts to no one who did not bid', async () => {
      engine.buyers.on('https://low-bidder.example/ping', decline);
      engine.buyers.on('https://high-bidder.example/ping', decline);

      const { outcome } = await submit();

      expect(outcome.kind).to.equal('rejected');
      expect(engine.buyers.calls.filter((call) => call.kind === 'post')).to.have.length(0);
    });
  });

  describe('the disk', () => {
    let syncs: HeldSyncs;

    beforeEach(async () => {
      await engine.close();
      syncs = new HeldSyncs();
      syncs.holding = false;
      engine = await inMemoryEngine({ syncWal: syncs.sync });
      key = await engine.publisherKey();
      await engine.applyBuyers('ping-post-bidders');
      engine.buyers.on('https://low-bidder.example/ping', decline);
      engine.buyers.on('https://high-bidder.example/ping', () => ({
        outcome: 'accepted',
        priceCents: 4500,
        reference: 'high-1',
      }));
      engine.buyers.on('https://high-bidder.example/post', accept);
      syncs.holding = true;
    });

    afterEach(() => syncs.releaseAll());

    it('pings while the new lead reaches the disk, and posts only once its intent is there', async () => {
      const answer = submit();
      await waitUntil('an fsync is awaited', () => syncs.pending.length > 0, 5_000, 5);
      // The lead's own commit was not waited on: the pings went out. The fsync awaited is the intent's.
      expect(engine.buyers.calls.filter((call) => call.kind === 'ping')).to.have.length(2);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(
        engine.buyers.to('https://high-bidder.example/post'),
        'posted before the intent was on disk',
      ).to.have.length(0);

      syncs.releaseAll();
      const { outcome } = await answer;
      expect(outcome.kind).to.equal('sold');
      expect(engine.buyers.to('https://high-bidder.example/post')).to.have.length(1);
    });
  });

  describe('waits for the disk', () => {
    let syncs: HeldSyncs;
    let ids: Record<string, string>;

    beforeEach(async () => {
      await engine.close();
      // Each fsync done at once: one lead alone, each commit that waits starts an fsync of its own.
      syncs = new HeldSyncs();
      syncs.holding = false;
      engine = await inMemoryEngine({ syncWal: syncs.sync });
      key = await engine.publisherKey();
      ids = await engine.applyBuyers('capped-bidders');
      engine.buyers.on('https://high-bidder.example/ping', () => ({ outcome: 'accepted', priceCents: 4500 }));
      engine.buyers.on('https://low-bidder.example/ping', () => ({ outcome: 'accepted', priceCents: 2400 }));
      engine.buyers.on('https://high-bidder.example/post', decline);
      engine.buyers.on('https://low-bidder.example/post', accept);
    });

    it("only for each post's intent and the sale: holds, a decline and what it gives back ride on them", async () => {
      // The first lead opens the buyers' cap counters.
      await submit({ ssn: '123-45-0001', email: 'first@example.com' });
      syncs.started = 0;

      const { outcome } = await submit({ ssn: '123-45-0002', email: 'second@example.com' });

      expect(outcome).to.include({ kind: 'sold', buyerId: ids['low-bidder'] });
      expect(engine.buyers.calls.filter((call) => call.kind === 'post')).to.have.length(4);
      expect(syncs.started, "two posts' intents and the sale").to.equal(3);
      const counters = await engine.db.selectFrom('buyer_cap_counters').select(['buyer_id', 'leads']).execute();
      expect(
        counters.map((counter) => counter.leads).sort(),
        'the declined post gave its cap place back',
      ).to.deep.equal([0, 2]);
    });
  });

  describe("a sale deadline shorter than the buyers' timeouts", () => {
    /** As the service runs (DEFAULT_CIRCUIT_BREAKER): a buyer that only fails is paused at its fifth failure. */
    const FAILURE_THRESHOLD = 5;

    beforeEach(async () => {
      await engine.close();
      // 700 ms to sell, the buyers' calls 1000 ms: every call is cut to the deadline.
      engine = await inMemoryEngine({ sellDeadlineMs: 700 });
      key = await engine.publisherKey();
      await engine.applyBuyers('ping-post-bidders');
    });

    it('never pauses a buyer for calls the deadline cut short of its own timeout', async () => {
      engine.buyers.on('https://low-bidder.example/ping', () => 'timeout');
      engine.buyers.on('https://high-bidder.example/ping', decline);

      for (let lead = 0; lead <= FAILURE_THRESHOLD; lead += 1) await submit();

      expect(engine.buyers.to('https://low-bidder.example/ping')).to.have.length(FAILURE_THRESHOLD + 1);
    });
  });
});
