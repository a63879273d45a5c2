import type { BuyerAttemptKind, BuyerAttemptOutcome, LeadPostResolver, LeadPostState } from '../db/schema.js';

/** One ping, post or skip of a lead at a buyer, as the audit trail keeps it; rows stay in lead.repository.ts. */
export interface AttemptRecord {
  id: string;
  leadId: string;
  buyerId: string;
  kind: BuyerAttemptKind;
  startedAt: number;
  durationMs: number;
  outcome: BuyerAttemptOutcome;
  httpStatus: number | null;
  bidCents: number | null;
  priceCents: number | null;
  reference: string | null;
  /** Why it was skipped or turned down, in the buyer's words or ours. */
  reason: string | null;
}

/**
 * A post settled after its call rather than by its answer in time (lead_posts' resolved_by): by an operator,
 * the buyer's status lookup, its late answer, its settleAfter, or its onTimeout policy.
 */
export interface PostSettlement {
  buyerId: string;
  state: LeadPostState;
  /** What the buyer pays, when the post is a sale. */
  chargeCents: number | null;
  resolvedBy: LeadPostResolver;
}
