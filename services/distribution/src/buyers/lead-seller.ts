import type { BuyerAttemptRow } from '../db/schema.js';
import type { ValidLead } from '../leads/validation.js';
import type { PersonHashes } from './duplicates.js';

export interface SaleRequest {
  leadId: string;
  lead: ValidLead;
  publisherId: string;
  /** The publisher's own revenue share, used where a buyer's payout policy names none. */
  publisherPayoutShareBps: number;
  person: PersonHashes;
  /** Epoch ms by which the sale must be decided. */
  deadline: number;
}

export interface SaleWinner {
  buyerId: string;
  chargeCents: number;
  payoutCents: number;
  redirectUrl: string;
}

export interface SaleDecision {
  winner: SaleWinner | undefined;
  /** Every buyer considered: its pings, posts, or why it was skipped. */
  attempts: BuyerAttemptRow[];
  /** Wall time spent waiting on buyers' answers. */
  buyerWaitMs: number;
  /** Why nothing was sold, when nothing was. */
  reason: string;
}

/** Decides who buys a lead. The seam where buyer selection plugs into intake. */
export interface LeadSeller {
  sell(request: SaleRequest): Promise<SaleDecision>;
}

export const NO_ELIGIBLE_BUYER = 'No buyer is buying leads like this one right now';
export const NO_BUYER_ACCEPTED = 'No buyer accepted the lead';
export const DEADLINE_REACHED = 'No buyer accepted the lead in time';
