import {
  clawbackCents,
  type LeadReturn,
  returnEntries,
  withinWindow,
} from '@leadflow/distribution/src/returns/lead-return';
import { expect } from 'chai';

const terms = (windowDays: number) => ({ windowDays, reasons: ['fraud'], maxRate: undefined });
const at = (iso: string) => Date.parse(iso);

describe('returns: the window and the money of one return', () => {
  it("counts the window in calendar days of the buyer's time zone, not in UTC or in hours", () => {
    // 23:30 in Chicago on November 22: the day of sale there, though it is November 23 in UTC.
    const soldAt = at('2026-11-23T05:30:00Z');
    expect(withinWindow(terms(0), soldAt, at('2026-11-23T05:59:00Z'), 'America/Chicago')).to.equal(true);
    expect(withinWindow(terms(0), soldAt, at('2026-11-23T06:01:00Z'), 'America/Chicago')).to.equal(false);
    expect(withinWindow(terms(0), soldAt, at('2026-11-23T23:59:00Z'), 'UTC')).to.equal(true);
    // Seven days after the day of sale, to its last minute, across the end of daylight saving time.
    const octoberSale = at('2026-10-30T15:00:00Z');
    expect(withinWindow(terms(7), octoberSale, at('2026-11-07T05:59:00Z'), 'America/Chicago')).to.equal(true);
    expect(withinWindow(terms(7), octoberSale, at('2026-11-07T06:01:00Z'), 'America/Chicago')).to.equal(false);
  });

  it("claws back the publisher's payout in the share of the credit and its terms, rounding down", () => {
    const sale = { leadId: 'lead_1', buyerId: 'b', publisherId: 'p', chargeCents: 4000, payoutCents: 3200, soldAt: 0 };
    expect(clawbackCents(sale, 4000, 10_000)).to.equal(3200);
    expect(clawbackCents(sale, 4000, 0), 'absorbed by the network').to.equal(0);
    expect(clawbackCents(sale, 1000, 10_000), 'a quarter of the charge credited').to.equal(800);
    expect(clawbackCents({ ...sale, payoutCents: 1999 }, 4000, 5000)).to.equal(999);
    expect(
      clawbackCents({ ...sale, chargeCents: 9e12, payoutCents: 8e12 }, 9e12, 10_000),
      'no float overflow',
    ).to.equal(8e12);
  });

  it('books a return in three entries that sum to zero', () => {
    const leadReturn: LeadReturn = {
      id: 'ret_1',
      leadId: 'lead_1',
      requestId: 'r',
      buyerId: 'buy_1',
      publisherId: 'pub_1',
      reason: 'fraud',
      note: '',
      creditCents: 1000,
      clawbackCents: 800,
      marginCents: 200,
      soldAt: 0,
      returnedAt: 1,
    };
    const entries = returnEntries(leadReturn).map(({ type, account, amountCents }) => ({ type, account, amountCents }));
    expect(entries).to.deep.equal([
      { type: 'buyer_return_credit', account: 'buyer:buy_1', amountCents: 1000 },
      { type: 'publisher_clawback', account: 'publisher:pub_1', amountCents: -800 },
      { type: 'platform_return', account: 'platform', amountCents: -200 },
    ]);
  });
});
