import type { BuyerDefinition } from '../definition/buyer-definition.js';
import type { BuyerCallResult } from '../integration/buyer-call.js';
import type { LeadFacts } from './lead-facts.js';
import { priceFor } from './pricing.js';

/**
 * What a buyer is charged for a post, in cents; undefined when there is no price to sell at.
 *
 * `agreedCents` is the price known before the post: the ping's bid, or the fixed or rule price. Without
 * one (a direct post priced by its answer) the answer's price is the price. With one, an accepted answer
 * that names another price follows the post response's `priceChange`: `accept_lower` (the default)
 * charges the lower of the two, so that leadflow never bills more than the buyer's own answer says;
 * `use_bid` charges the agreed price whatever the answer says; `reject` sells at neither.
 * An accepted post that is not a sale still holds the lead for this buyer (see postVerdict).
 */
export function chargeForPost(
  definition: BuyerDefinition,
  facts: LeadFacts,
  agreedCents: number | undefined,
  result: BuyerCallResult,
): number | undefined {
  const answeredCents = result.outcome === 'accepted' ? result.reply.priceCents : undefined;
  if (agreedCents === undefined)
    return result.outcome === 'accepted' ? priceFor(definition.pricing, facts, answeredCents) : undefined;
  if (definition.integration.mode !== 'ping_post' || answeredCents === undefined || answeredCents === agreedCents)
    return agreedCents;
  switch (definition.integration.post.response.priceChange ?? 'accept_lower') {
    case 'accept_lower':
      return Math.min(agreedCents, answeredCents);
    case 'use_bid':
      return agreedCents;
    case 'reject':
      return undefined;
  }
}
