import { seededRandom } from '@leadflow/core/seeded-random';
import { type PlannedOffer, planPosts } from '@leadflow/simulator/src/planned-sale';
import { expect } from 'chai';

/** Expected revenue of posting in `order`, each post that does not fit in the budget passed over. */
function walk(offers: readonly PlannedOffer[], order: readonly number[], budgetMs: number): number {
  let [expected, reach, atMs] = [0, 1, 0];
  for (const index of order) {
    const offer = offers[index]!;
    const answeredAtMs = Math.max(atMs, offer.readyAtMs) + offer.postMs;
    if (answeredAtMs > budgetMs) continue;
    if (offer.hangs) return expected;
    const accepts = offer.fails ? 0 : offer.acceptRate;
    expected += reach * accepts * offer.valueCents;
    reach *= 1 - accepts;
    atMs = answeredAtMs;
  }
  return expected;
}

function* orders(indices: readonly number[]): Generator<number[]> {
  if (indices.length === 0) yield [];
  for (const [position, index] of indices.entries())
    for (const rest of orders(indices.toSpliced(position, 1))) yield [index, ...rest];
}

function randomOffers(random: () => number, count: number): PlannedOffer[] {
  return Array.from({ length: count }, (_, index) => ({
    path: `/${index}/post`,
    valueCents: 1000 + Math.round(random() * 6000),
    acceptRate: random() < 0.2 ? 0.15 : 0.6 + random() * 0.35,
    readyAtMs: Math.round(random() * 250),
    postMs: Math.round(150 + random() * 1500),
    fails: random() < 0.1,
    hangs: random() < 0.1,
  }));
}

describe('simulator: the planned sale', () => {
  it('plans the order of the highest expected revenue, as trying every order finds it', () => {
    const random = seededRandom(20261126);
    for (let round = 0; round < 200; round += 1) {
      const offers = randomOffers(random, 1 + Math.floor(random() * 6));
      const budgetMs = 500 + Math.round(random() * 2500);
      const best = Math.max(
        ...[...orders(offers.map((_, index) => index))].map((order) => walk(offers, order, budgetMs)),
      );
      const plan = planPosts(offers, budgetMs);
      expect(plan.expectedCents).to.be.closeTo(best, 1e-6);
      expect(walk(offers, plan.order, budgetMs)).to.be.closeTo(best, 1e-6);
    }
  });

  it('never posts a lender whose post hangs or does not fit, and waits for a bid before its post', () => {
    const offer = (fields: Partial<PlannedOffer>): PlannedOffer => ({
      path: '/a/post',
      valueCents: 5000,
      acceptRate: 0.8,
      readyAtMs: 0,
      postMs: 300,
      fails: false,
      hangs: false,
      ...fields,
    });
    expect(planPosts([offer({ hangs: true }), offer({ valueCents: 1000 })], 2000).order).to.deep.equal([1]);
    expect(planPosts([offer({ postMs: 1900 }), offer({ valueCents: 1000 })], 2000).order).to.deep.equal([0]);
    // The bid comes at 1800 ms: its post would be answered at 2100, past the budget.
    expect(planPosts([offer({ readyAtMs: 1800 }), offer({ valueCents: 1000 })], 2000).order).to.deep.equal([1]);
    // A $50 lender that seldom accepts and a likely $40 one: with time for both, the long shot first;
    // with time for one, the likely one alone.
    const longShotAndLikely = [offer({ acceptRate: 0.1 }), offer({ valueCents: 4000 })];
    expect(planPosts(longShotAndLikely, 2000).order).to.deep.equal([0, 1]);
    expect(planPosts(longShotAndLikely, 500).order).to.deep.equal([1]);
  });
});
