import { expect } from 'chai';
import type { Answer } from './answer-tally.js';
import { MARKETS } from './market.js';
import { bestSaleOf, captureOf, type LeadTake, leadTakes, pairedRevenue, plannedSaleOf } from './market-capture.js';
import type { BuyerCall, StoredLead } from './market-figures.js';
import { lossCause } from './market-losses.js';

const call = (buyer: string, kind: BuyerCall['kind'], outcome: BuyerCall['outcome'], late = false): BuyerCall => ({
  buyer,
  kind,
  startedAt: 0,
  durationMs: 10,
  outcome,
  late,
});

const lead = (fields: Partial<StoredLead>): StoredLead => ({
  clickid: 'c',
  status: 'rejected',
  processingMs: 100,
  calls: [],
  skips: [],
  chargeCents: 0,
  payoutCents: 0,
  ...fields,
});

describe('bench: market capture', () => {
  it("names why a lead brought less than its best sale, from the best buyer's trail", () => {
    expect(lossCause(lead({ status: 'unconfirmed', calls: [call('best', 'post', 'unknown')] }), 'best')).to.equal(
      'unconfirmed',
    );
    expect(lossCause(lead({ calls: [call('best', 'ping', 'accepted', true)] }), 'best')).to.equal('late_bid');
    expect(lossCause(lead({ skips: [{ buyer: 'best', reason: 'deadline' }] }), 'best')).to.equal('skipped_for_time');
    expect(lossCause(lead({ skips: [{ buyer: 'best', reason: 'circuit_open' }] }), 'best')).to.equal('skipped');
    expect(
      lossCause(lead({ calls: [call('best', 'ping', 'accepted'), call('best', 'post', 'error')] }), 'best'),
    ).to.equal('best_declined');
    const soldLower = lead({
      status: 'sold',
      chargeCents: 2000,
      calls: [call('best', 'ping', 'accepted'), call('other', 'post', 'accepted')],
    });
    expect(lossCause(soldLower, 'best')).to.equal('sold_lower');
    expect(lossCause(lead({ calls: [call('other', 'post', 'rejected')] }), 'best')).to.equal('not_reached');
  });

  it('sets each lead against the best sale the simulator computes for its clickid, and adds the losses up', () => {
    // Find a clickid the market sells within 2 s, and one it does not.
    const clickids = Array.from({ length: 200 }, (_, index) => `market-test-${index}`);
    const sellable = clickids.find((clickid) => bestSaleOf(MARKETS.standard, clickid, 2000) !== undefined)!;
    const best = bestSaleOf(MARKETS.standard, sellable, 2000)!;
    expect(best.buyer).to.match(/^market-/);
    expect(bestSaleOf(MARKETS.standard, sellable, 0), 'nothing sells in no time').to.equal(undefined);
    const planned = plannedSaleOf(MARKETS.standard, sellable, 2000)?.priceCents ?? 0;
    expect(planned).to.be.at.most(best.priceCents);

    const answers: Answer[] = [
      { leadId: 'l1', status: 'rejected', processingMs: 100, opening: false },
      { leadId: 'l2', status: 'sold', processingMs: 100, opening: false },
      { leadId: 'burst', status: 'sold', processingMs: 100, opening: true },
    ];
    const stored = new Map([
      ['l1', lead({ clickid: sellable, skips: [{ buyer: best.buyer, reason: 'deadline' }] })],
      ['l2', lead({ clickid: `${sellable}-twin`, status: 'sold', chargeCents: 5000 })],
      ['burst', lead({ clickid: 'burst' })],
    ]);
    const takes = leadTakes(MARKETS.standard, answers, stored, 2000);
    expect([...takes.keys()]).to.deep.equal([sellable, `${sellable}-twin`]);
    expect(takes.get(sellable)).to.deep.include({
      revenueCents: 0,
      bestCents: best.priceCents,
      plannedCents: planned,
      loss: 'skipped_for_time',
      deadlineSkips: 1,
    });

    const capture = captureOf(takes);
    const twinBest = takes.get(`${sellable}-twin`)!.bestCents;
    expect(capture.leads).to.equal(2);
    expect(capture.revenuePerLead).to.equal(25);
    expect(capture.share).to.be.closeTo(5000 / (best.priceCents + twinBest), 0.0001);
    const twinPlanned = takes.get(`${sellable}-twin`)!.plannedCents;
    expect(capture.plannedPerLead).to.equal(Math.round((planned + twinPlanned) / 2) / 100);
    expect(capture.shareOfPlanned).to.be.closeTo(5000 / (planned + twinPlanned), 0.0001);
    expect(capture.lossPerLead.skipped_for_time).to.equal(Math.round(best.priceCents / 2) / 100);
  });

  it('counts the leads still held at the end, and what late answers sold after the publisher was answered', () => {
    const answers: Answer[] = [
      { leadId: 'held', status: 'rejected', processingMs: 2000, opening: false },
      { leadId: 'late', status: 'rejected', processingMs: 2000, opening: false },
      { leadId: 'sold', status: 'sold', processingMs: 900, opening: false },
      { leadId: 'lost', status: 'rejected', processingMs: 900, opening: false },
    ];
    const stored = new Map([
      ['held', lead({ clickid: 'c-held', status: 'unconfirmed' })],
      ['late', lead({ clickid: 'c-late', status: 'sold', chargeCents: 3000 })],
      ['sold', lead({ clickid: 'c-sold', status: 'sold', chargeCents: 5000 })],
      ['lost', lead({ clickid: 'c-lost', status: 'rejected' })],
    ]);
    const capture = captureOf(leadTakes(MARKETS.standard, answers, stored, 2000));
    expect(capture.heldPer1000).to.equal(250);
    expect(capture.lateSales).to.equal(1);
    expect(capture.lateSaleRevenuePerLead).to.equal(7.5);
    expect(capture.revenuePerLead, 'late sales are revenue too').to.equal(20);
  });

  it('pairs two runs on the leads both measured', () => {
    const take = (revenueCents: number): LeadTake => ({
      revenueCents,
      bestCents: 6000,
      plannedCents: 5000,
      loss: undefined,
      deadlineSkips: 0,
      lateBids: 0,
      held: false,
      lateSaleCents: 0,
    });
    const routed = new Map([
      ['a', take(5000)],
      ['b', take(3000)],
      ['only-routed', take(9000)],
    ]);
    const waterfall = new Map([
      ['a', take(4000)],
      ['b', take(2000)],
      ['only-waterfall', take(1)],
    ]);
    expect(pairedRevenue(routed, waterfall)).to.deep.equal({
      leads: 2,
      revenuePerLead: 40,
      otherRevenuePerLead: 30,
      ratio: 1.3333,
    });
  });
});
