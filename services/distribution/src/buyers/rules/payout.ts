import type { PayoutPolicy } from '../definition/buyer-definition.js';

/**
 * The publisher's payout when the buyer is charged `chargeCents`: the terms the buyer's policy names
 * for this publisher, else the policy's default, else the publisher's own revenue share. A revenue
 * share rounds down to the cent. A fixed payout above the charge would sell at a loss: undefined, and
 * the buyer is not offered the lead.
 */
export function payoutFor(
  policy: PayoutPolicy,
  publisherId: string,
  chargeCents: number,
  publisherShareBps: number,
): number | undefined {
  // hasOwn: a publisher id such as "constructor" must not find Object.prototype's members.
  const payout = (Object.hasOwn(policy.publishers, publisherId) ? policy.publishers[publisherId] : policy.default) ?? {
    revenueShareBps: publisherShareBps,
  };
  if ('revenueShareBps' in payout) return Math.floor((chargeCents * payout.revenueShareBps) / 10_000);
  return payout.fixedCents <= chargeCents ? payout.fixedCents : undefined;
}

/** A buyer is offered the lead only when the payout is known and at least the publisher's floor (the lead's `price`). */
export function meetsFloor(payoutCents: number | undefined, floorCents: number): payoutCents is number {
  return payoutCents !== undefined && payoutCents >= floorCents;
}
