import { seededRandom } from '@leadflow/core/seeded-random';
import { logNormal, normalQuantile } from '@leadflow/distribution/src/selling/latency-curve';
import { expectedRevenue, type PostProspect, planPosts } from '@leadflow/distribution/src/selling/post-order';
import { LatencyScenarios } from '@leadflow/distribution/src/selling/post-scenarios';
import { expect } from 'chai';
import { prospect } from '../../../support/post-prospects.js';

/** A post to a buyer with learned figures: sent while its median answer time is left. */
function learned(...[valueDollars, acceptRate, p50Ms, p90Ms, settings]: Parameters<typeof prospect>): PostProspect {
  return prospect(valueDollars, acceptRate, p50Ms, p90Ms, { minimumTimeMs: p50Ms, ...settings });
}

/**
 * The revenue of posting in `order`, averaged over `sales` sales drawn one by one: each post's answer
 * time from its log-normal (or a hang at its silent share), its acceptance at its rate.
 */
function monteCarlo(prospects: readonly PostProspect[], order: readonly number[], timeLeftMs: number, sales = 100_000) {
  const random = seededRandom(42);
  let total = 0;
  for (let sale = 0; sale < sales; sale += 1) {
    let left = timeLeftMs;
    for (const index of order) {
      const post = prospects[index]!;
      const [hang, level, accept] = [random(), random(), random()];
      if (left < post.minimumTimeMs) continue;
      const { mu, sigma } = logNormal(post.latency);
      const answerMs = hang < post.silentRate ? Number.POSITIVE_INFINITY : Math.exp(mu + sigma * normalQuantile(level));
      const limit = Math.min(left, post.timeoutMs);
      if (answerMs > limit) {
        if (post.timeoutEndsSale) break;
        left -= limit;
        continue;
      }
      if (accept < post.acceptRate) {
        total += post.valueCents;
        break;
      }
      left -= answerMs;
    }
  }
  return total / sales;
}

describe('post order: scenarios of the answer times', () => {
  it('weighs a second post sent on some paths and not on others as a Monte Carlo of the same latencies does', () => {
    // Two posts answered in 400 ms at the median, in 800 ms: the second is sent when the first answers in
    // under 400 ms, half the time. Taken at its expected time, the first leaves too little: never sent.
    const two = [learned(40, 0.5, 400, 600), learned(30, 0.5, 400, 600)];
    const sampled = monteCarlo(two, [0, 1], 800);
    expect(new LatencyScenarios(two).revenue([0, 1], 800)).to.be.closeTo(sampled, sampled * 0.025);
    expect(expectedRevenue(two, 800)).to.be.below(sampled * 0.9);
    const three = [learned(40, 0.5, 300, 700), learned(30, 0.6, 300, 700), learned(20, 0.8, 200, 300)];
    const sampledThree = monteCarlo(three, [0, 1, 2], 900);
    expect(new LatencyScenarios(three).revenue([0, 1, 2], 900)).to.be.closeTo(sampledThree, sampledThree * 0.025);
  });

  it('posts first what pays best over the paths, where the walk at expected times chooses otherwise', () => {
    // A slow rich buyer, a quicker one that accepts twice as often, and a cheap one, with 1.88 s left.
    const offers = [learned(61, 0.35, 1251, 2087), learned(35, 0.7, 670, 1312), learned(19, 0.25, 760, 1458)];
    const atExpectedTimes = expectedRevenue(offers, 1878) > expectedRevenue([offers[1]!, offers[0]!, offers[2]!], 1878);
    expect(atExpectedTimes, 'the walk at expected times keeps the price order').to.equal(true);
    const order = planPosts(offers, 1878);
    expect(order[0]).to.equal(1);
    expect(monteCarlo(offers, order, 1878)).to.be.above(monteCarlo(offers, [0, 1, 2], 1878) * 1.05);
  });

  it('ends a path at a hang, unless the buyer counts no answer as a decline', () => {
    const hangs = learned(40, 0.5, 200, 300, { silentRate: 0.25 });
    expect(new LatencyScenarios([hangs]).revenue([0], 1000)).to.be.closeTo(4000 * 0.5 * 0.75, 1e-6);
    const next = learned(30, 1, 100, 150);
    // A hang ends the sale: the $30 post is reached only by the declines.
    expect(new LatencyScenarios([hangs, next]).revenue([0, 1], 3000)).to.be.closeTo(2000 * 0.75 + 3000 * 0.5 * 0.75, 1);
    // Counted as a decline, a hang takes its 2 s timeout and the $30 post still fits.
    const declines = { ...hangs, timeoutEndsSale: false };
    expect(new LatencyScenarios([declines, next]).revenue([0, 1], 3000)).to.be.closeTo(
      2000 * 0.75 + 3000 * (1 - 0.375),
      1,
    );
  });

  it('sends no post whose minimum time does not fit, and finds the best of every order', () => {
    const late = learned(50, 1, 100, 200, { minimumTimeMs: 1000 });
    expect(new LatencyScenarios([late]).revenue([0], 900)).to.equal(0);
    const offers = [learned(50, 0.3, 900, 1400), learned(40, 0.6, 300, 500), learned(30, 0.8, 150, 250)];
    const scenarios = new LatencyScenarios(offers);
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    const best = Math.max(...orders.map((order) => scenarios.revenue(order, 1200)));
    expect(scenarios.revenue(scenarios.bestOrder(1200), 1200)).to.equal(best);
  });
});
