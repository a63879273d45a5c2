import { capPeriods } from '@leadflow/distribution/src/selling/cap-periods';
import { expect } from 'chai';

const noCaps = {
  leadsPerHour: undefined,
  leadsPerDay: undefined,
  leadsPerMonth: undefined,
  spendPerDayCents: undefined,
};

describe('capPeriods', () => {
  it('counts only the periods a cap is set for', () => {
    expect(capPeriods(noCaps, new Date('2026-11-22T10:00:00Z'), 'UTC')).to.deep.equal([]);
    expect(capPeriods({ ...noCaps, spendPerDayCents: 5000 }, new Date('2026-11-22T10:00:00Z'), 'UTC')).to.deep.equal([
      { period: 'd:2026-11-22', maxLeads: undefined, maxSpendCents: 5000 },
    ]);
  });

  it("names the hour, day and month in the buyer's time zone", () => {
    const caps = { leadsPerHour: 5, leadsPerDay: 50, leadsPerMonth: 500, spendPerDayCents: undefined };
    // 03:30 UTC on Dec 1 is still Nov 30, 21:30, in Chicago.
    expect(capPeriods(caps, new Date('2026-12-01T03:30:00Z'), 'America/Chicago')).to.deep.equal([
      { period: 'h:2026-11-30T21', maxLeads: 5, maxSpendCents: undefined },
      { period: 'd:2026-11-30', maxLeads: 50, maxSpendCents: undefined },
      { period: 'm:2026-11', maxLeads: 500, maxSpendCents: undefined },
    ]);
  });
});
