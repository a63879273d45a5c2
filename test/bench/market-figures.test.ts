import { expect } from 'chai';
import type { Answer } from './answer-tally.js';
import { type BuyerCall, buyerWaitMs, marketFigures, type StoredLead } from './market-figures.js';

/** A call of `durationMs` starting `atMs` into the sale. */
const ping = (atMs: number, durationMs: number, outcome: BuyerCall['outcome'] = 'accepted'): BuyerCall => ({
  buyer: 'b',
  kind: 'ping',
  startedAt: 1_000_000 + atMs,
  durationMs,
  outcome,
  late: false,
});
const post = (atMs: number, durationMs: number, outcome: BuyerCall['outcome'] = 'accepted'): BuyerCall => ({
  buyer: 'b',
  kind: 'post',
  startedAt: 1_000_000 + atMs,
  durationMs,
  outcome,
  late: false,
});

describe('bench: market figures', () => {
  it('counts the time any call was open once, cut at the end of the sale', () => {
    expect(buyerWaitMs([])).to.equal(0);
    // Pings together (the slowest counts), then posts one after another.
    expect(buyerWaitMs([ping(0, 120), ping(0, 250), ping(1, 80), post(251, 100, 'rejected'), post(352, 60)])).to.equal(
      410,
    );
    // A hanging ping past the window runs on while the posts go: counted once, and not past the sale.
    expect(buyerWaitMs([ping(0, 90), ping(0, 800, 'timeout'), post(300, 50, 'rejected'), post(360, 70)], 440)).to.equal(
      440,
    );
    expect(buyerWaitMs([ping(0, 90), ping(0, 800, 'timeout'), post(300, 50, 'rejected'), post(360, 70)])).to.equal(800);
  });

  it('takes processingTime minus buyer wait per lead, leaving out the opening burst and naming unrecorded leads', () => {
    const answer = (leadId: string, processingMs: number, opening = false): Answer => ({
      leadId,
      status: 'sold',
      processingMs,
      opening,
    });
    const lead = (processingMs: number, calls: BuyerCall[], chargeCents: number): StoredLead => ({
      clickid: `click-${processingMs}`,
      status: chargeCents > 0 ? 'sold' : 'rejected',
      skips: [],
      processingMs,
      calls,
      chargeCents,
      payoutCents: (chargeCents * 8) / 10,
    });
    const stored = new Map([
      ['a', lead(305, [ping(0, 200), post(200, 100)], 4000)],
      ['b', lead(402, [ping(0, 250), ping(0, 150), post(250, 140)], 2000)],
      ['burst', lead(500, [ping(0, 100)], 1000)],
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
