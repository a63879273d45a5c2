import type { LeadPostResolver, LeadPostState } from '../db/schema.js';

/** A post intent and its answer; rows stay in lead-post.repository.ts. */
export interface LeadPost {
  /** Also the idempotency reference the buyer may be sent (mapping field attemptId). */
  id: string;
  leadId: string;
  buyerId: string;
  state: LeadPostState;
  /** Known before the post for a priced offer, else from the answer. */
  chargeCents: number | null;
  payoutCents: number | null;
  redirectUrl: string | null;
  /** The buyer's own reference for the lead, from its answer. */
  reference: string | null;
  createdAt: number;
  answeredAt: number | null;
  resolvedBy: LeadPostResolver | null;
}
