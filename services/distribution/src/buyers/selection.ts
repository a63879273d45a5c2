import type { Buyer } from './buyer.js';

/** What selection needs to know of a lead. */
export interface LeadTerms {
  state: string;
  loanAmountCents: number;
  /** The publisher's floor: the least payout it takes. */
  priceFloorCents: number;
  test: boolean;
}

/** A buyer the lead may be offered to, with the money of a sale. */
export interface BuyerOffer {
  buyer: Buyer;
  chargeCents: number;
  payoutCents: number;
}

export type SkipReason = 'state' | 'loan_amount' | 'floor';

export interface Selection {
  /** In the order they are tried. */
  offers: BuyerOffer[];
  skipped: { buyerId: string; reason: SkipReason }[];
}

/** The publisher's share of a buyer's price, rounded down to the cent. */
export function payoutFor(chargeCents: number, payoutShareBps: number): number {
  return Math.floor((chargeCents * payoutShareBps) / 10_000);
}

function skipReason(buyer: Buyer, lead: LeadTerms, payoutCents: number): SkipReason | undefined {
  if (buyer.states.length > 0 && !buyer.states.includes(lead.state)) return 'state';
  if (buyer.minLoanAmountCents > 0 && lead.loanAmountCents < buyer.minLoanAmountCents) return 'loan_amount';
  if (buyer.maxLoanAmountCents > 0 && lead.loanAmountCents > buyer.maxLoanAmountCents) return 'loan_amount';
  if (payoutCents < lead.priceFloorCents) return 'floor';
  return undefined;
}

/**
 * The active buyers that take this lead, by priority (lower first), then by the
 * higher payout, then by name so that the order is stable.
 */
export function selectBuyers(buyers: readonly Buyer[], lead: LeadTerms, payoutShareBps: number): Selection {
  const offers: BuyerOffer[] = [];
  const skipped: Selection['skipped'] = [];
  for (const buyer of buyers) {
    if (!buyer.active) continue;
    const payoutCents = payoutFor(buyer.priceCents, payoutShareBps);
    const reason = skipReason(buyer, lead, payoutCents);
    if (reason) skipped.push({ buyerId: buyer.id, reason });
    else offers.push({ buyer, chargeCents: buyer.priceCents, payoutCents });
  }
  offers.sort(
    (a, b) => a.buyer.priority - b.buyer.priority || b.payoutCents - a.payoutCents || a.buyer.name.localeCompare(b.buyer.name),
  );
  return { offers, skipped };
}
