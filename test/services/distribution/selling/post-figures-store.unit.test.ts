import type { Db } from '@leadflow/distribution/src/db/database';
import type { BuyerAttemptOutcome } from '@leadflow/distribution/src/db/schema';
import type { AttemptRecord } from '@leadflow/distribution/src/leads/attempt-record';
import { priceBandOf, WINDOW_POSTS } from '@leadflow/distribution/src/selling/post-figures';
import { PostFiguresStore } from '@leadflow/distribution/src/selling/post-figures-store';
import { expect } from 'chai';

function attempt(
  leadId: string,
  buyerId: string,
  kind: 'ping' | 'post' | 'skip',
  outcome: BuyerAttemptOutcome,
  startedAt: number,
  durationMs = 100,
): AttemptRecord {
  return {
    id: `att_${leadId}_${buyerId}_${kind}`,
    leadId,
    buyerId,
    kind,
    startedAt,
    durationMs,
    outcome,
    httpStatus: null,
    bidCents: null,
    priceCents: null,
    reference: null,
    reason: null,
  };
}

/** Storage is only read by load(), which the selling tests exercise on SQLite and MariaDB. */
const NO_STORAGE = undefined as unknown as Db;
const NOTHING_OFFERED = () => undefined;

describe('post figures store: what the engine reads on the hot path', () => {
  it('learns from the posts of a sale as it ends, and ignores pings and skips', () => {
    const store = new PostFiguresStore(NO_STORAGE);
    expect(store.figures('buy_a').posts).to.equal(0);
    store.record(
      [
        attempt('lead_1', 'buy_a', 'ping', 'accepted', 1),
        attempt('lead_1', 'buy_a', 'post', 'rejected', 2, 300),
        attempt('lead_1', 'buy_b', 'skip', 'skipped', 3),
      ],
      'CA',
      NOTHING_OFFERED,
    );
    expect(store.figures('buy_a')).to.include({ posts: 1, p50Ms: 300 });
    expect(store.figures('buy_b').posts).to.equal(0);
    expect([...store.all()].map(([buyerId]) => buyerId)).to.deep.equal(['buy_a']);
  });

  it('counts a post once when it is seen again, and keeps only the most recent posts', () => {
    const store = new PostFiguresStore(NO_STORAGE);
    const before = store.figures('buy_a').acceptRate;
    store.record([attempt('lead_1', 'buy_a', 'post', 'accepted', 1)], 'CA', NOTHING_OFFERED);
    store.record([attempt('lead_1', 'buy_a', 'post', 'accepted', 1)], 'CA', NOTHING_OFFERED);
    expect(store.figures('buy_a').posts).to.equal(1);
    expect(store.figures('buy_a').acceptRate, 'fresh figures after a post, not the cached ones').to.be.above(before);
    for (let i = 0; i < WINDOW_POSTS + 10; i += 1)
      store.record([attempt(`lead_x${i}`, 'buy_a', 'post', 'rejected', 100 + i)], 'TX', NOTHING_OFFERED);
    const figures = store.figures('buy_a');
    expect(figures.posts).to.equal(WINDOW_POSTS);
    expect(store.figures('buy_a', 'CA').acceptRate, 'the accepted post left the window').to.be.closeTo(
      figures.acceptRate,
      1e-9,
    );
  });

  it('keeps the newest posts by when they were made, whatever order their sales ended in', () => {
    const store = new PostFiguresStore(NO_STORAGE);
    for (let i = 0; i < WINDOW_POSTS; i += 1)
      store.record([attempt(`lead_${i}`, 'buy_a', 'post', 'rejected', 1_000 + i * 10)], 'CA', NOTHING_OFFERED);
    const full = store.figures('buy_a').acceptRate;
    store.record([attempt('lead_older', 'buy_a', 'post', 'accepted', 500)], 'CA', NOTHING_OFFERED);
    expect(store.figures('buy_a').acceptRate, 'older than every post kept: left out').to.equal(full);
    store.record([attempt('lead_between', 'buy_a', 'post', 'accepted', 1_005)], 'CA', NOTHING_OFFERED);
    expect(store.figures('buy_a').posts).to.equal(WINDOW_POSTS);
    const between = store.figures('buy_a').acceptRate;
    expect(between, 'newer than the oldest post kept: in, in its place').to.be.above(full);
    store.record([attempt('lead_newest', 'buy_a', 'post', 'accepted', 9_000)], 'CA', NOTHING_OFFERED);
    expect(store.figures('buy_a').acceptRate, 'the newest post weighs most').to.be.above(between * 2);
  });

  it("keeps the price each post was offered at: a buyer's accept rate by price band", () => {
    const store = new PostFiguresStore(NO_STORAGE);
    for (let i = 0; i < 40; i += 1) {
      const cheap = i % 2 === 0;
      store.record([attempt(`lead_${i}`, 'buy_a', 'post', cheap ? 'accepted' : 'rejected', i)], 'CA', (buyerId) =>
        buyerId === 'buy_a' ? (cheap ? 800 : 6_000) : undefined,
      );
    }
    const overall = store.figures('buy_a', 'CA').acceptRate;
    expect(store.figures('buy_a', 'CA', priceBandOf(800)).acceptRate).to.be.above(overall + 0.2);
    expect(store.figures('buy_a', 'CA', priceBandOf(6_000)).acceptRate).to.be.below(overall - 0.2);
  });

  it("starts a buyer with no posts of its own at the tree's figures: the newest posts to any buyer", () => {
    const store = new PostFiguresStore(NO_STORAGE);
    // Old posts that nobody accepted, then newer ones to two other buyers accepted nine times in ten.
    for (let i = 0; i < WINDOW_POSTS; i += 1)
      store.record([attempt(`lead_old${i}`, 'buy_old', 'post', 'rejected', i, 900)], 'CA', NOTHING_OFFERED);
    for (let i = 0; i < WINDOW_POSTS; i += 1) {
      const buyer = i % 2 === 0 ? 'buy_a' : 'buy_b';
      const outcome = i % 10 === 0 ? 'rejected' : 'accepted';
      store.record([attempt(`lead_new${i}`, buyer, 'post', outcome, 10_000 + i, 120)], 'CA', NOTHING_OFFERED);
    }
    const tree = store.treeFigures();
    expect(tree.posts).to.equal(WINDOW_POSTS);
    expect(tree.acceptRate).to.be.within(0.85, 0.92);
    expect(tree).to.include({ p50Ms: 120, p90Ms: 120 });
    const newcomer = store.figures('buy_new');
    expect(newcomer.posts).to.equal(0);
    expect(newcomer.acceptRate).to.be.closeTo(tree.acceptRate, 1e-9);
    expect(newcomer.p50Ms, "the buyer's own latency: none yet").to.equal(undefined);
    // A buyer's own posts outweigh the tree's start once it has a few.
    expect(store.figures('buy_old').acceptRate).to.be.below(0.1);
  });
});
