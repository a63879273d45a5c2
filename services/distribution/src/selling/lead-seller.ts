import type { AttemptRecord } from '../leads/attempt-record.js';
import type { PersonHashes } from '../leads/stored-lead.js';
import type { ValidLead } from '../leads/validation.js';
import type { LingeringPost } from './late-answers.js';
import type { PostAnswer } from './lead-post.repository.js';

export interface SaleRequest {
  leadId: string;
  lead: ValidLead;
  publisherId: string;
  /** The publisher's own revenue share, used where a buyer's payout policy names none. */
  publisherPayoutShareBps: number;
  person: PersonHashes;
  /** The claim under which this process sells the lead: a post goes out only while it still holds. */
  claimToken: string;
  /** Buyers this lead was posted to before (a sale taken over after a crash): never posted again. */
  postedBuyers: ReadonlySet<string>;
  /** Epoch ms by which the sale must be decided. */
  deadline: number;
  /** The service's own selling budget, ms (its sell deadline): `deadline` comes sooner when the caller cannot wait. */
  budgetMs: number;
  /** Epoch ms until which an answer's record may be tried again while storage fails. */
  recordBy: number;
}

/**
 * A buyer's acceptance that is not stored yet: the sale's record stores it in its own transaction, one
 * durable write fewer per sale than storing it first.
 */
export interface UnstoredAcceptance {
  answer: PostAnswer & { state: 'accepted'; chargeCents: number; payoutCents: number; redirectUrl: string };
  /**
   * Stores the acceptance on its own, trying again while storage fails (then throws): for a sale whose
   * record failed, so that the lead's retry finds the post accepted and finishes the sale from it.
   */
  storeAlone(): Promise<void>;
}

export interface SaleWinner {
  /** The accepted post. */
  postId: string;
  buyerId: string;
  chargeCents: number;
  payoutCents: number;
  redirectUrl: string;
  /**
   * The post may hold some of the buyer's caps, to be consumed by the sale. False only when the seller
   * knows it holds none (the buyer has no caps), which spares the sale's record a look for a hold.
   */
  mayHoldCapacity: boolean;
  /** Set when the seller leaves the post's acceptance to the sale's record; else it is stored already. */
  acceptance?: UnstoredAcceptance;
}

export interface SaleDecision {
  winner: SaleWinner | undefined;
  /**
   * A post whose answer never came: the lead is held for that buyer, and no other one gets it.
   * `lingering`: the post's call is still open, and its late answer may settle the lead once the lead's
   * outcome is recorded; whoever records it follows it then (or abandons it).
   */
  unconfirmed: { postId: string; buyerId: string; lingering?: LingeringPost } | undefined;
  /**
   * The sale stopped because this process may no longer post the lead: its claim was taken over, or
   * another post of the lead may be at a buyer. Whoever holds the lead now answers for it.
   */
  interrupted: boolean;
  /** Buyers were left untried for lack of time. */
  outOfTime: boolean;
  /** Every buyer considered: its pings, posts, or why it was skipped. */
  attempts: AttemptRecord[];
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
export const AWAITING_CONFIRMATION =
  "The buyer's answer did not arrive in time; the lead is held until the buyer confirms";
