import { BidLevels } from '@leadflow/distribution/src/selling/bid-levels';
import { MIN_LEARNED_PINGS, PingLatencies } from '@leadflow/distribution/src/selling/ping-window';
import { expect } from 'chai';

describe('learned bid levels and answer rates', () => {
  it("learns a bidder's bid rate and bid levels from its recent answers, once it has enough", () => {
    const levels = new BidLevels();
    for (let i = 1; i < MIN_LEARNED_PINGS; i += 1) levels.record('b', 1000);
    expect(levels.level('b')).to.equal(undefined);
    levels.record('b', undefined);
    expect(levels.level('b'), 'bids all alike: one level').to.deep.equal({ bidRate: 0.9, levelsCents: [1000] });
    // Only the most recent 100 answers count.
    for (let i = 0; i < 100; i += 1) levels.record('b', i % 2 === 0 ? 2000 : undefined);
    expect(levels.level('b')).to.deep.equal({ bidRate: 0.5, levelsCents: [2000] });
    for (let i = 0; i < 10; i += 1) levels.record('none', undefined);
    expect(levels.level('none'), 'never bids').to.equal(undefined);
  });

  it("splits a bidder's recent bids into the means of their lower and upper halves", () => {
    const levels = new BidLevels();
    // Bids of $30 to $39 and $60 to $69, in no order, and answers without a bid.
    for (let i = 0; i < 10; i += 1) {
      levels.record('b', 6000 + ((i * 7) % 10) * 100);
      levels.record('b', undefined);
      levels.record('b', 3000 + ((i * 3) % 10) * 100);
    }
    expect(levels.level('b')).to.deep.equal({ bidRate: 20 / 30, levelsCents: [3450, 6450] });
    // As answers leave the most recent 100, their bids leave the levels.
    for (let i = 0; i < 100; i += 1) levels.record('b', i < 95 ? undefined : 5000);
    expect(levels.level('b')).to.deep.equal({ bidRate: 0.05, levelsCents: [5000] });
  });

  it('learns how often a bidder answers its pings at all, from its most recent 100', () => {
    const latencies = new PingLatencies();
    expect(latencies.answerRate('b')).to.equal(1);
    for (let i = 0; i < 30; i += 1) latencies.record('b', 100);
    for (let i = 0; i < 10; i += 1) latencies.recordNoAnswer('b');
    expect(latencies.answerRate('b')).to.equal(0.75);
    for (let i = 0; i < 100; i += 1) latencies.recordNoAnswer('b');
    expect(latencies.answerRate('b')).to.equal(0);
    expect(latencies.answerTimesMs('b'), 'its answer times stay').to.have.length(30);
  });
});
