import { expectedRevenue, type PostProspect } from '@leadflow/distribution/src/selling/post-order';
import { arrivalWithin, extraWaitMs, type OutstandingBidder } from '@leadflow/distribution/src/selling/window-value';
import { expect } from 'chai';
import fc from 'fast-check';

/** A post answered in about 150 ms, accepted at `acceptRate`. */
function post(valueCents: number, acceptRate = 1): PostProspect {
  return {
    valueCents,
    acceptRate,
    latency: { p50Ms: 150, p90Ms: 200 },
    silentRate: 0,
    timeoutMs: 1000,
    minimumTimeMs: 150,
    timeoutEndsSale: true,
  };
}

/** A bidder that always answers, at `answerMs` give or take 10 ms, and always bids `bidCents`. */
function bidder(bidCents: number, answerMs: number, extra: Partial<OutstandingBidder> = {}): OutstandingBidder {
  return {
    answerTimesMs: Array.from({ length: 20 }, (_, index) => answerMs - 10 + index),
    answerRate: 1,
    bidRate: 1,
    timeoutMs: 1200,
    bids: [post(bidCents)],
    ...extra,
  };
}

describe('ping window by value', () => {
  it('waits for a richer bid that usually comes soon, while the time left still carries the posts', () => {
    // The case of a window closing at 300 ms with a $19.54 bid in hand and a $26.91 one due at ~305 ms.
    const wait = extraWaitMs({ elapsedMs: 300, leftMs: 1700, inHand: [post(1954)], outstanding: [bidder(2691, 305)] });
    // At most until its slowest answer, 15% later: the window wakes at its answer anyway.
    expect(wait).to.be.within(1, 314 * 1.15 - 300);
  });

  it('closes when the bid still out is worth no more than the ones in hand', () => {
    expect(
      extraWaitMs({ elapsedMs: 300, leftMs: 1700, inHand: [post(3000)], outstanding: [bidder(2000, 320)] }),
    ).to.equal(0);
  });

  it('weighs the chance of a high bid from a bidder whose bids spread, not only its mean bid', () => {
    // Posts that take over a second: the time left carries one. In hand, a $50 bid. Still out, due in
    // 20 ms: a bidder whose bids are $30 or $68, evenly. Its mean, $49, is worth no wait; its $68 bid is.
    const slow = (cents: number): PostProspect => ({
      ...post(cents, 0.8),
      latency: { p50Ms: 1200, p90Ms: 1500 },
      timeoutMs: 2000,
      minimumTimeMs: 1200,
    });
    const input = (bids: PostProspect[]) => ({
      elapsedMs: 300,
      leftMs: 1700,
      inHand: [slow(5000)],
      outstanding: [bidder(0, 320, { bids })],
    });
    expect(extraWaitMs(input([slow(4900)]))).to.equal(0);
    expect(extraWaitMs(input([slow(3000), slow(6800)]))).to.be.within(1, 329 * 1.15 - 300);
  });

  it('closes when waiting would leave no time for the posts', () => {
    expect(
      extraWaitMs({ elapsedMs: 300, leftMs: 400, inHand: [post(1954)], outstanding: [bidder(2691, 600)] }),
    ).to.equal(0);
  });

  it('does not wait for a bidder that hangs, or that is later than it has ever answered', () => {
    const hangs = bidder(5000, 305, { answerRate: 0.4 });
    // Its answers come at 295-314 ms, give or take 15%: at 370 ms it will not answer any more.
    expect(extraWaitMs({ elapsedMs: 370, leftMs: 1700, inHand: [post(1000)], outstanding: [hangs] })).to.equal(0);
    expect(arrivalWithin(hangs, 370, 1000)).to.equal(0);
    // Before its answer times, a bidder answering 40% of its pings is still waited for: its bid is worth it.
    expect(arrivalWithin(hangs, 200, 200)).to.be.closeTo(0.4, 1e-9);
    expect(extraWaitMs({ elapsedMs: 200, leftMs: 1700, inHand: [post(1000)], outstanding: [hangs] })).to.be.above(0);
    // A hanging bidder's chance, once the others' answers are due, is what is left of its answer rate.
    expect(arrivalWithin(hangs, 310, 100)).to.be.below(0.4);
  });

  it('never waits past the bidder’s ping timeout, nor the deadline', () => {
    const slow = bidder(9000, 900, { timeoutMs: 700 });
    expect(extraWaitMs({ elapsedMs: 300, leftMs: 3000, inHand: [], outstanding: [slow] })).to.equal(0);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.integer({ min: 100, max: 5000 }), { maxLength: 3 }),
        fc.array(fc.record({ bid: fc.integer({ min: 100, max: 5000 }), at: fc.integer({ min: 20, max: 1500 }) }), {
          maxLength: 6,
        }),
        (elapsedMs, leftMs, inHand, out) => {
          const outstanding = out.map(({ bid, at }) => bidder(bid, at, { timeoutMs: 1000 }));
          const wait = extraWaitMs({ elapsedMs, leftMs, inHand: inHand.map((value) => post(value)), outstanding });
          expect(wait).to.be.at.least(0);
          if (wait > 0) {
            expect(elapsedMs + wait).to.be.at.most(1000);
            expect(wait).to.be.at.most(leftMs);
          }
        },
      ),
    );
  });

  it('waits only when waiting expects more than posting now', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 200, max: 3000 }),
        fc.integer({ min: 100, max: 5000 }),
        fc.integer({ min: 100, max: 5000 }),
        fc.integer({ min: 20, max: 1000 }),
        (elapsedMs, leftMs, inHand, bid, at) => {
          const out = bidder(bid, at);
          const wait = extraWaitMs({ elapsedMs, leftMs, inHand: [post(inHand)], outstanding: [out] });
          if (wait === 0) return;
          const came = arrivalWithin(out, elapsedMs, wait);
          const later =
            came * expectedRevenue([post(Math.max(inHand, bid)), post(Math.min(inHand, bid))], leftMs - wait) +
            (1 - came) * expectedRevenue([post(inHand)], leftMs - wait);
          expect(later).to.be.greaterThan(expectedRevenue([post(inHand)], leftMs));
        },
      ),
    );
  });

  it('waits for a bid when there is none in hand and one can still come', () => {
    expect(extraWaitMs({ elapsedMs: 300, leftMs: 1700, inHand: [], outstanding: [bidder(1000, 400)] })).to.be.within(
      90,
      409 * 1.15 - 300,
    );
  });
});
