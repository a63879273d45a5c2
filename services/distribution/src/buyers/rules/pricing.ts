import type { Pricing } from '../definition/buyer-definition.js';
import { evaluateFilter } from './filters.js';
import type { LeadFacts } from './lead-facts.js';

/**
 * What the buyer pays for the lead, in cents: its fixed price, the price of the first rule the lead
 * matches (else the default), or its bid. undefined = no price known: a bid buyer that has not bid.
 */
export function priceFor(pricing: Pricing, facts: LeadFacts, bidCents: number | undefined): number | undefined {
  switch (pricing.type) {
    case 'fixed':
      return pricing.priceCents;
    case 'rules':
      return pricing.rules.find((rule) => evaluateFilter(rule.when, facts))?.priceCents ?? pricing.defaultCents;
    case 'bid':
      return bidCents;
  }
}
