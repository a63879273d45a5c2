import type { Integration } from '../buyers/definition/buyer-definition.js';
import type { BuyerCallResult } from '../buyers/integration/buyer-call.js';
import type { LeadPostState } from '../db/schema.js';

/** Transport failures after which the request may have reached the buyer: the connection was cut mid-exchange. */
const MAYBE_DELIVERED = new Set(['reset', 'too_large', 'other']);

export interface PostVerdict {
  state: Exclude<LeadPostState, 'pending'>;
  /** Set when the buyer's timeout policy turned an unknown outcome into a decline. */
  byTimeoutPolicy: boolean;
}

/**
 * What a post's result means for the sale protocol. An answer is an answer: accepted when it is a sale
 * (`sold`: accepted, and its price meets the floor), rejected when the buyer said no, failed for an error
 * reply or when nothing was sent. No whole answer (a timeout, a connection cut after sending) is unknown:
 * the buyer may hold the lead; unless the buyer's contract makes a timeout a decline. An acceptance that
 * is no sale (its price missing, under the floor, or refused by the price-change rule) is unknown too:
 * the buyer holds the lead, so it is never offered to another buyer; its status lookup or an operator
 * settles it.
 */
export function postVerdict(result: BuyerCallResult, sold: boolean, onTimeout: Integration['onTimeout']): PostVerdict {
  if (result.outcome === 'accepted') return { state: sold ? 'accepted' : 'unknown', byTimeoutPolicy: false };
  if (result.outcome === 'rejected') return { state: 'rejected', byTimeoutPolicy: false };
  const unknown =
    result.outcome === 'timeout' || (result.httpStatus === null && MAYBE_DELIVERED.has(result.reply.error ?? ''));
  if (!unknown) return { state: 'failed', byTimeoutPolicy: false };
  return onTimeout === 'decline'
    ? { state: 'failed', byTimeoutPolicy: true }
    : { state: 'unknown', byTimeoutPolicy: false };
}
