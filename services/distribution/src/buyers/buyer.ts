import type { BuyerRow } from '../db/schema.js';

/** A buyer as selection sees it. */
export interface Buyer {
  id: string;
  name: string;
  active: boolean;
  priority: number;
  priceCents: number;
  /** USPS codes; empty = every state. */
  states: string[];
  /** Zero = no bound. */
  minLoanAmountCents: number;
  maxLoanAmountCents: number;
  /** Empty = the buyer accepts every lead offered without a call. */
  postUrl: string;
  /** Empty = test leads are accepted without a call. */
  testPostUrl: string;
  timeoutMs: number;
  redirectUrl: string;
}

export function buyerFromRow(row: BuyerRow): Buyer {
  return {
    id: row.id,
    name: row.name,
    active: row.active === 1,
    priority: row.priority,
    priceCents: row.price_cents,
    states: row.states ? row.states.split(',') : [],
    minLoanAmountCents: row.min_loan_amount_cents,
    maxLoanAmountCents: row.max_loan_amount_cents,
    postUrl: row.post_url,
    testPostUrl: row.test_post_url,
    timeoutMs: row.timeout_ms,
    redirectUrl: row.redirect_url,
  };
}
