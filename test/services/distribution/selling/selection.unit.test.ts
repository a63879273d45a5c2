import type { Buyer } from '@leadflow/distribution/src/buyers/buyer';
import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import {
  type BuyerStanding,
  byPriceGroup,
  byTier,
  isCapped,
  rankOffers,
  skipReason,
} from '@leadflow/distribution/src/selling/selection';
import { expect } from 'chai';
import { minimalBuyer } from '../../../support/buyer-documents.js';

function buyer(id: string, settings: Record<string, unknown> = {}): Buyer {
  const parsed = parseBuyerDocument({ buyers: [minimalBuyer({ name: id, ...settings })] });
  if (!('buyers' in parsed)) throw new Error(JSON.stringify(parsed.errors));
  return { id, definition: parsed.buyers[0]!, updatedAt: 0 };
}

const MONDAY_NOON = new Date('2026-11-23T12:00:00Z');

function standing(overrides: Partial<BuyerStanding> = {}): BuyerStanding {
  return {
    buyer: buyer('b'),
    facts: { state: 'CA' },
    periods: [],
    chargeCents: 1000,
    payoutCents: 800,
    usage: () => undefined,
    posted: false,
    duplicate: false,
    circuitOpen: false,
    ...overrides,
  };
}

describe('selection: who may get a lead, and in which order', () => {
  it('lets a buyer with nothing against it through', () => {
    expect(skipReason(standing(), 500, MONDAY_NOON)).to.equal(undefined);
  });

  it('names the first reason against a buyer, a lead already posted to it before all', () => {
    const everything = standing({
      buyer: buyer('b', { schedule: { timezone: 'UTC', days: ['sat'] }, filters: { field: 'state', equals: 'TX' } }),
      posted: true,
      duplicate: true,
      circuitOpen: true,
    });
    expect(skipReason(everything, 500, MONDAY_NOON)).to.equal('posted');
    expect(skipReason({ ...everything, posted: false }, 500, MONDAY_NOON)).to.equal('closed');
    expect(
      skipReason(
        { ...everything, posted: false, buyer: buyer('b', { filters: { field: 'state', equals: 'TX' } }) },
        500,
        MONDAY_NOON,
      ),
    ).to.equal('filtered');
    expect(skipReason(standing({ duplicate: true, circuitOpen: true }), 500, MONDAY_NOON)).to.equal('duplicate');
    expect(skipReason(standing({ circuitOpen: true }), 900, MONDAY_NOON)).to.equal('floor');
    expect(skipReason(standing({ circuitOpen: true }), 500, MONDAY_NOON)).to.equal('circuit_open');
  });

  it('counts a buyer capped when one more lead, or its price, would pass a period cap', () => {
    const periods = [
      { period: 'd:2026-11-23', maxLeads: 10, maxSpendCents: undefined },
      { period: 'h:2026-11-23T12', maxLeads: undefined, maxSpendCents: 5000 },
    ];
    const usage = (leads: number, spendCents: number) => (period: string) =>
      period.startsWith('d:') ? { leads, spendCents: 0 } : { leads: 0, spendCents };
    expect(isCapped(periods, usage(9, 4000), 1000)).to.equal(false);
    expect(isCapped(periods, usage(10, 0), 1000)).to.equal(true);
    expect(isCapped(periods, usage(0, 4001), 1000)).to.equal(true);
    expect(
      isCapped(periods, () => undefined, 1000),
      'no counter yet: nothing used',
    ).to.equal(false);
    expect(skipReason(standing({ periods, usage: usage(10, 0) }), 500, MONDAY_NOON)).to.equal('capped');
  });

  it('ranks by price, then priority, then the weighted draw; unpriced offers last', () => {
    const offer = (id: string, chargeCents: number | undefined, settings: Record<string, unknown> = {}) => ({
      buyer: buyer(id, settings),
      chargeCents,
    });
    const offers = [
      offer('unpriced', undefined),
      offer('cheap', 500),
      offer('rich-late', 900, { priority: 200 }),
      offer('rich-early', 900, { priority: 10 }),
    ];
    expect(rankOffers(offers, () => 0.5).map((ranked) => ranked.buyer.id)).to.deep.equal([
      'rich-early',
      'rich-late',
      'cheap',
      'unpriced',
    ]);
    const heavy = offer('heavy', 700, { weight: 9 });
    const light = offer('light', 700, { weight: 1 });
    const draws = [0.5, 0.5];
    expect(
      rankOffers([light, heavy], () => draws.shift()!).map((ranked) => ranked.buyer.id),
      'a heavier weight draws higher',
    ).to.deep.equal(['heavy', 'light']);
  });

  it('groups offers by tier, lowest first', () => {
    const offers = [3, 1, 2, 1].map((tier, index) => ({
      buyer: buyer(`t${tier}-${index}`, { tier }),
      chargeCents: 100,
    }));
    expect(byTier(offers).map((tier) => tier.map((offer) => offer.buyer.id))).to.deep.equal([
      ['t1-1', 't1-3'],
      ['t2-2'],
      ['t3-0'],
    ]);
  });

  it('ranks equal prices of several tiers lower tier first, before priority', () => {
    const offer = (id: string, tier: number, priority: number) => ({
      buyer: buyer(id, { tier, priority }),
      chargeCents: 700,
    });
    const ranked = rankOffers([offer('t2-first-priority', 2, 1), offer('t1-last-priority', 1, 900)], () => 0.5);
    expect(ranked.map((one) => one.buyer.id)).to.deep.equal(['t1-last-priority', 't2-first-priority']);
  });

  it('walks price groups by their best offer, tiers kept together, equal bests by tier', () => {
    const offer = (id: string, tier: number, chargeCents: number | undefined) => ({
      buyer: buyer(id, { tier }),
      chargeCents,
    });
    const groups = byPriceGroup([
      offer('t1-a', 1, 559),
      offer('t1-b', 1, 300),
      offer('t2-a', 2, 828),
      offer('t3-a', 3, 559),
      offer('t4-unpriced', 4, undefined),
    ]);
    expect(groups.map((group) => group.map((one) => one.buyer.id))).to.deep.equal([
      ['t2-a'],
      ['t1-a', 't1-b'],
      ['t3-a'],
      ['t4-unpriced'],
    ]);
  });
});
