import {
  expectedLatencyWithin,
  expectedRevenue,
  finishProbability,
  planPosts,
  prospectOf,
  timeForAll,
} from '@leadflow/distribution/src/selling/post-order';
import { expect } from 'chai';
import { referencePlanPosts } from '../../../support/post-order-reference.js';
import { prospect } from '../../../support/post-prospects.js';

/** In price order, as rankOffers gives them: a slow $50 buyer that seldom accepts, then two fast ones. */
const SLOW_RICH = prospect(50, 0.2, 1500, 1700, { timeoutMs: 1800 });
const FAST_A = prospect(30, 0.6, 80, 150, { timeoutMs: 500 });
const FAST_B = prospect(25, 0.6, 80, 150, { timeoutMs: 500 });

describe('post order: deadline-aware expected value', () => {
  it('keeps the price order when there is time to walk every offer', () => {
    expect(timeForAll([SLOW_RICH, FAST_A, FAST_B], 9500)).to.equal(true);
    expect(planPosts([SLOW_RICH, FAST_A, FAST_B], 9500)).to.deep.equal([0, 1, 2]);
  });

  it('keeps the price order, without a search, when the first offers all but surely accept', () => {
    // A big tree of quick lenders that accept 85% of posts: the fifth post is reached unsold about one time
    // in 2,000 (0.15^4), so that fifty of them do not fit in the time left does not matter.
    const offers = Array.from({ length: 50 }, (_, i) => prospect(60 - i, 0.85, 120, 200, { timeoutMs: 1000 }));
    expect(timeForAll(offers, 2200)).to.equal(true);
    expect(planPosts(offers, 2200)).to.deep.equal(offers.map((_, i) => i));
    // The same tree when a post left unanswered ends the sale most of the time: that is no sale.
    const hanging = offers.map((offer) => ({ ...offer, latency: { p50Ms: 3000, p90Ms: 5000 } }));
    expect(timeForAll(hanging, 2200)).to.equal(false);
  });

  it('posts the fast, likely offers first when the slow rich one would leave no time for them', () => {
    expect(timeForAll([SLOW_RICH, FAST_A, FAST_B], 1900)).to.equal(false);
    const order = planPosts([SLOW_RICH, FAST_A, FAST_B], 1900);
    expect(order).to.deep.equal([1, 2, 0]);
    const inPriceOrder = expectedRevenue([SLOW_RICH, FAST_A, FAST_B], 1900);
    const planned = expectedRevenue(
      order.map((index) => [SLOW_RICH, FAST_A, FAST_B][index]!),
      1900,
    );
    // Price order: about 20% of $50 and then no time; planned: $30 at 60%, $25 at 60% of the rest, then the slow one.
    expect(inPriceOrder).to.be.closeTo(1000, 60);
    expect(planned).to.be.above(2300);
  });

  it('still posts the slow rich offer first when it accepts often enough to be worth the time', () => {
    const likely = { ...SLOW_RICH, acceptRate: 0.9 };
    expect(planPosts([likely, FAST_A, FAST_B], 1900)).to.deep.equal([0, 1, 2]);
  });

  it('keeps the price order when another order would bring less than half a percent more', () => {
    const a = prospect(30, 0.5, 700, 900, { timeoutMs: 1000 });
    const slightlyFaster = prospect(29.9, 0.5, 690, 890, { timeoutMs: 1000 });
    expect(timeForAll([a, slightlyFaster], 1500)).to.equal(false);
    expect(expectedRevenue([slightlyFaster, a], 1500)).to.be.above(expectedRevenue([a, slightlyFaster], 1500));
    expect(planPosts([a, slightlyFaster], 1500)).to.deep.equal([0, 1]);
    const muchFaster = prospect(29.9, 0.5, 500, 700, { timeoutMs: 1000 });
    expect(planPosts([a, muchFaster], 1500)).to.deep.equal([1, 0]);
  });

  it('puts last a post likely to go unanswered when no answer would end the sale', () => {
    // Answers in 3 s at the median, with a 1 s timeout: most of its posts leave the lead unconfirmed.
    const hanging = prospect(60, 0.9, 3000, 5000, { timeoutMs: 1000 });
    const fast = prospect(20, 0.5, 50, 100, { timeoutMs: 500 });
    expect(planPosts([hanging, fast], 1400)).to.deep.equal([1, 0]);
    // The same buyer whose unanswered post counts as a decline costs only its time.
    const declines = { ...hanging, timeoutEndsSale: false };
    expect(expectedRevenue([declines, fast], 2000)).to.be.above(expectedRevenue([hanging, fast], 2000));
  });

  it('posts a buyer that hangs now and then after one that bids a little less and always answers', () => {
    // Two quick buyers, time for one of them only if the first declines: a hang of the first ends the sale.
    const hangs = prospect(40, 0.8, 400, 600, { timeoutMs: 1000, minimumTimeMs: 400, silentRate: 0.05 });
    const answers = prospect(39, 0.8, 400, 600, { timeoutMs: 1000, minimumTimeMs: 400 });
    expect(timeForAll([hangs, answers], 800)).to.equal(false);
    expect(planPosts([hangs, answers], 800)).to.deep.equal([1, 0]);
    // Its answers within the timeout count only when it does not hang.
    expect(expectedRevenue([hangs], 800)).to.be.closeTo(4000 * 0.8 * 0.95, 40);
    // Without the hang its bid comes first.
    expect(planPosts([{ ...hangs, silentRate: 0 }, answers], 800)).to.deep.equal([0, 1]);
  });

  it('gives no value to a post that cannot be sent in the time left', () => {
    const late = prospect(50, 1, 100, 200, { timeoutMs: 1000, minimumTimeMs: 1000 });
    expect(expectedRevenue([late], 900)).to.equal(0);
    expect(expectedRevenue([late], 1000)).to.be.closeTo(5000, 1);
  });

  it('searches long trees without trying every order, never doing worse than the price order', () => {
    const offers = [
      prospect(80, 0.1, 1500, 1700, { timeoutMs: 1750 }),
      prospect(70, 0.1, 1500, 1700, { timeoutMs: 1750 }),
      ...Array.from({ length: 7 }, (_, i) => prospect(40 - i, 0.4, 60, 120, { timeoutMs: 300 })),
    ];
    const order = planPosts(offers, 1800);
    expect([...order].sort((a, b) => a - b)).to.deep.equal(offers.map((_, i) => i));
    const revenueOf = (indices: number[]) =>
      expectedRevenue(
        indices.map((index) => offers[index]!),
        1800,
      );
    expect(revenueOf(order)).to.be.above(revenueOf(offers.map((_, i) => i)) * 1.4);
    expect(order.slice(0, 3)).to.deep.equal([2, 3, 4]);
  });

  it('models latency as log-normal through the learned median and 90th percentile', () => {
    const latency = { p50Ms: 200, p90Ms: 800 };
    expect(finishProbability(latency, 200)).to.be.closeTo(0.5, 1e-6);
    expect(finishProbability(latency, 800)).to.be.closeTo(0.9, 1e-6);
    expect(finishProbability(latency, 0)).to.equal(0);
    expect(expectedLatencyWithin(latency, 800)).to.be.within(150, 400);
    expect(expectedLatencyWithin(latency, 100)).to.be.below(100);
  });

  it("takes a buyer with no posts to answer as the tree's buyers do, never slower than its timeout says", () => {
    const post = { valueCents: 5000, timeoutMs: 1000, minimumTimeMs: 500, timeoutEndsSale: true };
    const unknown = { acceptRate: 0.85, silentRate: 0, p50Ms: undefined, p90Ms: undefined };
    expect(prospectOf(unknown, post).latency).to.deep.equal({ p50Ms: 500, p90Ms: 1000 });
    expect(prospectOf(unknown, post, { p50Ms: 120, p90Ms: 200 }).latency).to.deep.equal({ p50Ms: 120, p90Ms: 200 });
    expect(prospectOf(unknown, post, { p50Ms: 800, p90Ms: 1500 }).latency).to.deep.equal({ p50Ms: 500, p90Ms: 1000 });
    const known = { acceptRate: 0.85, silentRate: 0, p50Ms: 300, p90Ms: 450 };
    expect(prospectOf(known, post, { p50Ms: 120, p90Ms: 200 }).latency).to.deep.equal({ p50Ms: 300, p90Ms: 450 });
    // A tree of new buyers that answer and accept like the tree's: price order, no search.
    const newcomers = Array.from({ length: 50 }, (_, i) =>
      prospectOf(unknown, { ...post, valueCents: 6000 - i * 50 }, { p50Ms: 120, p90Ms: 200 }),
    );
    expect(timeForAll(newcomers, 2200)).to.equal(true);
    const assumedSlow = newcomers.map((prospect) => prospectOf(unknown, { ...post, valueCents: prospect.valueCents }));
    expect(timeForAll(assumedSlow, 2200)).to.equal(false);
  });

  it('keeps a single offer, and no offers, as they are', () => {
    expect(planPosts([SLOW_RICH], 100)).to.deep.equal([0]);
    expect(planPosts([], 100)).to.deep.equal([]);
  });
});

describe('post order: the search', () => {
  /** A deterministic stream of numbers in [0, 1). */
  function stream(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }

  it('chooses exactly the order the straightforward search chooses, in long trees too', () => {
    const next = stream(7);
    let reordered = 0;
    for (let tree = 0; tree < 60; tree += 1) {
      const size = 2 + Math.floor(next() * 60);
      const offers = Array.from({ length: size }, () => {
        const p50 = 20 + next() * 600;
        const timeoutMs = 200 + Math.floor(next() * 1800);
        return prospect(Math.round(5 + next() * 80), next(), p50, p50 * (1.1 + next() * 3), {
          timeoutMs,
          minimumTimeMs: Math.floor(timeoutMs * next()),
          timeoutEndsSale: next() < 0.5,
          silentRate: next() < 0.3 ? next() * 0.1 : 0,
        });
      }).sort((a, b) => b.valueCents - a.valueCents);
      const timeLeftMs = 100 + next() * 2500;
      const order = planPosts(offers, timeLeftMs);
      expect(order, `tree ${tree} of ${size} offers`).to.deep.equal(referencePlanPosts(offers, timeLeftMs));
      if (order.some((index, position) => index !== position)) reordered += 1;
    }
    expect(reordered, 'trees whose order the search changed').to.be.above(10);
  });
});
