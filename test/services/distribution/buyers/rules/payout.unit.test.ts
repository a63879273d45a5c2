import type { PayoutPolicy } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { meetsFloor, payoutFor } from '@leadflow/distribution/src/buyers/rules/payout';
import { expect } from 'chai';

const policy: PayoutPolicy = {
  default: { revenueShareBps: 8000 },
  publishers: { pub_fixed: { fixedCents: 1500 }, pub_vip: { revenueShareBps: 9250 } },
};

describe('payoutFor', () => {
  it('shares the charge, rounding down to the cent', () => {
    expect(payoutFor(policy, 'pub_other', 2500, 5000)).to.equal(2000);
    expect(payoutFor(policy, 'pub_other', 1999, 5000)).to.equal(1599); // 1599.2
    expect(payoutFor(policy, 'pub_other', 1, 5000)).to.equal(0); // 0.8
    expect(payoutFor(policy, 'pub_vip', 1999, 5000)).to.equal(1849); // 1849.075
  });

  it('gives the publisher its own terms before the default', () => {
    expect(payoutFor(policy, 'pub_fixed', 4000, 5000)).to.equal(1500);
    expect(payoutFor(policy, 'pub_vip', 4000, 5000)).to.equal(3700);
  });

  it('pays a fixed payout up to the charge, and never above it', () => {
    expect(payoutFor(policy, 'pub_fixed', 1500, 5000)).to.equal(1500);
    expect(payoutFor(policy, 'pub_fixed', 1499, 5000)).to.equal(undefined);
    expect(payoutFor({ default: { fixedCents: 1000 }, publishers: {} }, 'pub_any', 999, 5000)).to.equal(undefined);
  });

  it("falls back to the publisher's own share when the policy names no default", () => {
    const noDefault: PayoutPolicy = { default: undefined, publishers: { pub_vip: { revenueShareBps: 9000 } } };
    expect(payoutFor(noDefault, 'pub_other', 2000, 7500)).to.equal(1500);
    expect(payoutFor(noDefault, 'pub_vip', 2000, 7500)).to.equal(1800);
  });

  it('does not take a publisher id for one of Object.prototype members', () => {
    expect(payoutFor(policy, 'constructor', 1000, 5000)).to.equal(800);
    expect(payoutFor(policy, '__proto__', 1000, 5000)).to.equal(800);
  });
});

describe('meetsFloor', () => {
  it('offers the lead only when the payout is known and at least the floor', () => {
    expect(meetsFloor(1500, 1500)).to.equal(true);
    expect(meetsFloor(1501, 1500)).to.equal(true);
    expect(meetsFloor(1499, 1500)).to.equal(false);
    expect(meetsFloor(undefined, 0)).to.equal(false);
    expect(meetsFloor(0, 0)).to.equal(true);
  });
});
