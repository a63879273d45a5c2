import type { LeadStatus } from '../db/schema.js';

/** Keyed hashes of who a lead is about (HMAC, never plain hashes), for duplicate checks. */
export interface PersonHashes {
  ssn: string;
  email: string;
  phone: string;
}

/** A lead as stored: what was sent, who sells it, how it ended; rows stay in lead.repository.ts. */
export interface StoredLead {
  id: string;
  publisherId: string;
  clickid: string;
  /** Keyed hash of the normalized lead: tells a retry from a reused clickid. */
  fingerprint: string;
  status: LeadStatus;
  test: boolean;
  /** Who is selling the lead right now; a stale claim may be taken over. */
  claimToken: string;
  claimedAt: number;
  createdAt: number;
  completedAt: number | null;
  priceFloorCents: number;
  loanAmountCents: number;
  incomeNetMonthlyCents: number | null;
  state: string;
  /** Keyed hashes of who the lead is about, for duplicate checks. */
  person: PersonHashes;
  /** JSON of the normalized fields that are not personal data. */
  fieldsJson: string;
  /** Ciphertext of the JSON of the personal fields (SENSITIVE_LEAD_FIELDS); empty once purged. */
  sensitive: string;
  /** When the personal fields were purged (the keyed hashes stay); null while they are kept. */
  sensitivePurgedAt: number | null;
  /** JSON of the parsed tPar pairs. */
  trackingJson: string;
  buyerId: string | null;
  payoutCents: number | null;
  redirectUrl: string | null;
  reason: string | null;
  processingMs: number | null;
}

/** A lead held for a buyer whose answer never came, and the post that waits for it. */
export interface UnconfirmedLead {
  leadId: string;
  publisherId: string;
  clickid: string;
  buyerId: string;
  postId: string;
  postedAt: number;
  test: boolean;
}

/**
 * A lead whose seller stopped (with a post that may be at a buyer, or without one and past the retry
 * window): what taking it over and closing it need.
 */
export type StaleSale = Pick<StoredLead, 'id' | 'publisherId' | 'clickid' | 'test' | 'claimToken' | 'createdAt'>;

/** What a lead's outcome, or its claim given back, changes of a stored lead. */
export type LeadChange = Partial<
  Pick<
    StoredLead,
    'status' | 'claimedAt' | 'completedAt' | 'buyerId' | 'payoutCents' | 'redirectUrl' | 'reason' | 'processingMs'
  >
>;
