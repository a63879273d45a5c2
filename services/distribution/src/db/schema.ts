import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Times are epoch milliseconds; money is integer cents; flags are 0/1 (SQLite has no boolean). */
export interface PublisherTable {
  id: string;
  name: string;
  rate_limit_per_minute: number;
  payout_share_bps: number;
  /** Share of a returned lead's payout taken back from the publisher: 10000 all of it, 0 none (the network absorbs it). */
  clawback_bps: Generated<number>;
  created_at: number;
}

export interface PublisherKeyTable {
  id: string;
  publisher_id: string;
  key_hash: string;
  key_hint: string;
  created_at: number;
  revoked_at: number | null;
}

export interface BuyerTable {
  id: string;
  name: string;
  active: number;
  /** JSON of the BuyerDefinition. */
  definition: string;
  created_at: number;
  updated_at: number;
}

/** Leads and spend counted against a buyer's caps, one row per buyer and period ("h:2026-11-22T14", "d:2026-11-22", "m:2026-11"). */
export interface BuyerCapCounterTable {
  buyer_id: string;
  period: string;
  leads: number;
  spend_cents: number;
}

/** unconfirmed: a post's answer never came; no other buyer gets the lead until it is resolved. */
export type LeadStatus = 'processing' | 'sold' | 'rejected' | 'unconfirmed';

export interface LeadTable {
  id: string;
  publisher_id: string;
  clickid: string;
  /** Keyed hash of the normalized lead: tells a retry from a reused clickid. */
  fingerprint: string;
  status: LeadStatus;
  is_test: number;
  /** Who is selling the lead right now; a stale claim may be taken over. */
  claim_token: string;
  claimed_at: number;
  created_at: number;
  completed_at: number | null;
  price_floor_cents: number;
  loan_amount_cents: number;
  income_net_monthly_cents: number | null;
  state: string;
  ssn_hash: string;
  email_hash: string;
  phone_hash: string;
  /** JSON of the normalized fields that are not personal data. */
  fields: string;
  /** Ciphertext of the JSON of the personal fields (SENSITIVE_LEAD_FIELDS); empty once purged. */
  sensitive: string;
  /** When the sensitive fields were purged (the keyed hashes stay); null while they are kept. */
  sensitive_purged_at: number | null;
  /** JSON of the parsed tPar pairs. */
  tracking: string;
  buyer_id: string | null;
  payout_cents: number | null;
  redirect_url: string | null;
  reason: string | null;
  processing_ms: number | null;
}

export type BuyerAttemptOutcome = 'accepted' | 'rejected' | 'error' | 'timeout' | 'unknown' | 'skipped';
export type BuyerAttemptKind = 'ping' | 'post' | 'skip';

export interface BuyerAttemptTable {
  id: string;
  lead_id: string;
  buyer_id: string;
  kind: BuyerAttemptKind;
  started_at: number;
  duration_ms: number;
  outcome: BuyerAttemptOutcome;
  http_status: number | null;
  bid_cents: number | null;
  price_cents: number | null;
  reference: string | null;
  /** Why it was skipped or turned down, in the buyer's words or ours. */
  reason: string | null;
}

export interface SaleTable {
  id: string;
  /** Unique: a lead can be sold once. */
  lead_id: string;
  publisher_id: string;
  buyer_id: string;
  charge_cents: number;
  payout_cents: number;
  margin_cents: number;
  created_at: number;
}

export type LedgerEntryType =
  | 'buyer_charge'
  | 'publisher_payout'
  | 'platform_margin'
  /** A return's reversing entries: the buyer credited (positive), the publisher's payout clawed back, the network's share. */
  | 'buyer_return_credit'
  | 'publisher_clawback'
  | 'platform_return';

/** Append-only; a sale's entries sum to zero (the buyer's charge is negative), and so do a return's. */
export interface LedgerEntryTable {
  id: string;
  lead_id: string;
  entry_type: LedgerEntryType;
  /** "buyer:<id>", "publisher:<id>" or "platform". */
  account: string;
  amount_cents: number;
  created_at: number;
}

/** A person held for a buyer while a lead of theirs is posted to it (duplicate policy). */
export interface BuyerPersonHoldTable {
  buyer_id: string;
  /** "ssn:<keyed hash>", "email:<...>" or "phone:<...>". */
  person: string;
  held_at: number;
  /** The lead being posted; null for holds written before it was recorded. */
  lead_id: string | null;
}

/** What one lead holds of a buyer's caps while it is posted to it: counted, not yet sold. */
export interface BuyerCapHoldTable {
  lead_id: string;
  buyer_id: string;
  /** JSON array of the counter periods held. */
  periods: string;
  spend_cents: number;
  held_at: number;
}

/**
 * pending: committed before the post, no answer yet; accepted: the buyer took the lead; rejected: it said
 * no; failed: an error answer, or nothing was sent; unknown: sent, and no answer came (the buyer may have it).
 */
export type LeadPostState = 'pending' | 'accepted' | 'rejected' | 'failed' | 'unknown';
/**
 * Who settled a post that had no answer: the buyer's status lookup, an operator, the buyer's timeout
 * policy, its answer come after the sale's deadline, or its settleAfter policy.
 */
export type LeadPostResolver = 'status_lookup' | 'operator' | 'timeout_policy' | 'late_answer' | 'settle_after';

/** A post intent: written before the lead is posted to the buyer, then its answer. */
export interface LeadPostTable {
  /** Also the idempotency reference the buyer may be sent (mapping field attemptId). */
  id: string;
  lead_id: string;
  buyer_id: string;
  state: LeadPostState;
  /** Known before the post for a priced offer, else from the answer. */
  charge_cents: number | null;
  payout_cents: number | null;
  redirect_url: string | null;
  /** The buyer's own reference for the lead, from its answer. */
  reference: string | null;
  created_at: number;
  answered_at: number | null;
  resolved_by: LeadPostResolver | null;
}

/** The ping tree's settings: one row, id `tree`, holding the JSON of its TreeSettings. */
export interface TreeSettingsTable {
  id: string;
  settings: string;
  updated_at: number;
}

/** A sold lead its buyer returned: at most one per lead, credited in full or in part. */
export interface LeadReturnTable {
  id: string;
  lead_id: string;
  /** The caller's idempotency key: a retry with it finds this return. */
  request_id: string;
  buyer_id: string;
  publisher_id: string;
  /** One of the buyer's return reason codes. */
  reason: string;
  note: string | null;
  /** What the buyer is credited, at most its charge. */
  credit_cents: number;
  /** What is taken back from the publisher's payout under its clawback terms. */
  clawback_cents: number;
  /** The network's share of the credit: credit_cents - clawback_cents. */
  margin_cents: number;
  /** When the lead was sold (the sale's time), for return rates by the period of sale. */
  sold_at: number;
  returned_at: number;
}

/** A check value per key the data was written with: `hmac`, `pii:<kid>`. */
export interface KeyCheckTable {
  name: string;
  check_value: string;
  created_at: number;
}

/** Where a publisher's lead events go; the signing secret is ciphertext under the PII key ring. */
export interface PublisherPostbackTable {
  publisher_id: string;
  url: string;
  /** 1: http:// and private addresses allowed, as for a buyer marked local. */
  local: number;
  signing_secret: string;
  updated_at: number;
}

export type PublisherEventState = 'pending' | 'delivered' | 'failed';

/** The outbox of events for publishers' postback URLs, written in the transaction of the change. */
export interface PublisherEventTable {
  id: string;
  publisher_id: string;
  lead_id: string;
  type: string;
  /** The JSON posted, the same on every try. */
  body: string;
  state: PublisherEventState;
  attempts: number;
  next_attempt_at: number;
  /** Who is delivering it now, until lease_until; a lapsed lease may be taken over. */
  lease_token: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface Database {
  publishers: PublisherTable;
  publisher_keys: PublisherKeyTable;
  buyers: BuyerTable;
  buyer_cap_counters: BuyerCapCounterTable;
  buyer_person_holds: BuyerPersonHoldTable;
  buyer_cap_holds: BuyerCapHoldTable;
  ledger_entries: LedgerEntryTable;
  leads: LeadTable;
  buyer_attempts: BuyerAttemptTable;
  sales: SaleTable;
  lead_posts: LeadPostTable;
  key_checks: KeyCheckTable;
  tree_settings: TreeSettingsTable;
  lead_returns: LeadReturnTable;
  publisher_postbacks: PublisherPostbackTable;
  publisher_events: PublisherEventTable;
}

export type PublisherRow = Selectable<PublisherTable>;
export type PublisherKeyRow = Selectable<PublisherKeyTable>;
export type BuyerRow = Selectable<BuyerTable>;
export type LeadRow = Selectable<LeadTable>;
export type NewLeadRow = Insertable<LeadTable>;
export type LeadUpdate = Updateable<LeadTable>;
export type BuyerAttemptRow = Selectable<BuyerAttemptTable>;
export type NewSaleRow = Insertable<SaleTable>;
export type LeadReturnRow = Selectable<LeadReturnTable>;
export type LedgerEntryRow = Selectable<LedgerEntryTable>;
export type LeadPostRow = Selectable<LeadPostTable>;
export type PublisherEventRow = Selectable<PublisherEventTable>;
export type LeadPostUpdate = Updateable<LeadPostTable>;
