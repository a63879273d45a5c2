import type { Buyer } from '../buyers/buyer.js';
import type { LeadFacts } from '../buyers/rules/lead-facts.js';
import { payoutFor } from '../buyers/rules/payout.js';
import type { CapPeriod } from './cap-periods.js';
import type { SaleRequest } from './lead-seller.js';

/** A buyer still in the running for a lead. */
export interface Candidate {
  buyer: Buyer;
  facts: LeadFacts;
  periods: CapPeriod[];
  /** Known once the price is: from the pricing rules, or from the ping's bid. */
  chargeCents: number | undefined;
  payoutCents: number | undefined;
  /** The buyer's reference for its bid, sent back with the post. */
  pingReference?: string;
}

/** What the publisher is paid when the buyer is charged `chargeCents`, by the buyer's payout rules. */
export function payoutOf(buyer: Buyer, request: SaleRequest, chargeCents: number): number | undefined {
  return payoutFor(buyer.definition.payout, request.publisherId, chargeCents, request.publisherPayoutShareBps);
}

export function timezoneOf(buyer: Buyer): string {
  return buyer.definition.schedule?.timezone ?? 'UTC';
}
