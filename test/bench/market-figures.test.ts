import { expect } from 'chai';
import type { Answer } from './answer-tally.js';
import { type BuyerCall, buyerWaitMs, marketFigures, type StoredLead } from './market-figures.js';

const ping = (tier: number, durationMs: number, outcome: BuyerCall['outcome'] = 'accepted'): BuyerCall => ({
  tier,
  kind: 'ping',
  durationMs,
  outcome,
});
const post = (tier: number, durationMs: number, outcome: BuyerCall['outcome'] = 'accepted'): BuyerCall => ({
  tier,
  kind: 'post',
  durationMs,
  outcome,
});

describe('bench: market figures', () => {
  it('counts the slowest ping of each tier once, then every post', () => {
    expect(buyerWaitMs([])).to.equal(0);
    expect(buyerWaitMs([ping(1, 120), ping(1, 250), ping(1, 80), post(1, 100, 'rejected'), post(1, 60)])).to.equal(410);
    expect(
      buyerWaitMs([
        ping(1, 300),
        ping(1, 1000, 'timeout'),
        post(1, 50, 'rejected'),
        ping(2, 90),
        ping(2, 200),
        post(2, 70),
      ]),
    ).to.equal(1320);
  });

  it('takes processingTime minus buyer wait per lead, leaving out the opening burst and naming unrecorded leads', () => {
    const answer = (leadId: string, processingMs: number, opening = false): Answer => ({
      leadId,
      status: 'sold',
      processingMs,
      opening,
    });
    const lead = (processingMs: number, calls: BuyerCall[], chargeCents: number): StoredLead => ({
      processingMs,
      calls,
      chargeCents,
      payoutCents: (chargeCents * 8) / 10,
    });
    const stored = new Map([
      ['a', lead(305, [ping(1, 200), post(1, 100)], 4000)],
      ['b', lead(402, [ping(1, 250), ping(1, 150), post(1, 140)], 2000)],
      ['burst', lead(500, [ping(1, 100)], 1000)],
    ]);
    const figures = marketFigures(
      [answer('a', 310), answer('b', 400), answer('burst', 400, true), answer('lost', 100)],
      stored,
    );
    expect(figures).to.deep.include({
      leads: 3,
      openingBurst: 1,
      unrecorded: 1,
      soldRate: 1,
      revenuePerLead: 20,
      payoutPerLead: 16,
      marginPerLead: 4,
      buyerWaitP50Ms: 390,
      overheadP50Ms: 10,
      overheadP99Ms: 10,
      engineOverheadP99Ms: 12,
      overheadP99WithOpeningMs: 300,
      calls: { pings: 3, posts: 2, errors: 0, timeouts: 0 },
    });
  });
});
