import { BidLevels } from '@leadflow/distribution/src/selling/bid-levels';
import { MIN_LEARNED_PINGS, PingLatencies } from '@leadflow/distribution/src/selling/ping-window';
import { expect } from 'chai';

describe('learned bid levels and answer rates', () => {
  it("learns a bidder's bid rate and mean bid from its recent answers, once it has enough", () => {
    const levels = new BidLevels();
    for (let i = 1; i < MIN_LEARNED_PINGS; i += 1) levels.record('b', 1000);
    expect(levels.level('b')).to.equal(undefined);
    levels.record('b', undefined);
    expect(levels.level('b')).to.deep.equal({ bidRate: 0.9, bidCents: 1000 });
    // Only the most recent 100 answers count.
    for (let i = 0; i < 100; i += 1) levels.record('b', i % 2 === 0 ? 2000 : undefined);
    expect(levels.level('b')).to.deep.equal({ bidRate: 0.5, bidCents: 2000 });
    for (let i = 0; i < 10; i += 1) levels.record('none', undefined);
    expect(levels.level('none'), 'never bids').to.equal(undefined);
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
