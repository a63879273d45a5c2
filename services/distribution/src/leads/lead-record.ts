import { LEAD_FIELDS, type LeadField, SENSITIVE_LEAD_FIELDS } from '../../../common/lead-fields.js';
import type { PersonHashes } from '../buyers/duplicates.js';
import type { NewLeadRow } from '../db/schema.js';
import type { KeyedHasher } from '../security/keyed-hash.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import type { ValidLead } from './validation.js';

const SENSITIVE: ReadonlySet<LeadField> = new Set(SENSITIVE_LEAD_FIELDS);

function pick(lead: ValidLead, sensitive: boolean): Partial<Record<LeadField, string>> {
  const picked: Partial<Record<LeadField, string>> = {};
  for (const field of LEAD_FIELDS) {
    if (SENSITIVE.has(field) === sensitive && lead.fields[field] !== '') picked[field] = lead.fields[field];
  }
  return picked;
}

export interface LeadIdentity {
  id: string;
  publisherId: string;
  fingerprint: string;
  claimToken: string;
  now: number;
  /** Keyed hashes of who the lead is about, for the row and for duplicate checks. */
  person: PersonHashes;
}

/** The keyed hashes that recognise the same person in later leads. */
export function personHashes(lead: ValidLead, hasher: KeyedHasher): PersonHashes {
  return {
    ssn: hasher.hash('ssn', lead.fields.ssn),
    email: hasher.hash('email', lead.fields.email.toLowerCase()),
    phone: hasher.hash('phone', lead.fields.cellPhone),
  };
}

/**
 * The stored form of a valid lead: personal fields encrypted together, keyed
 * hashes for duplicate checks, the rest as JSON.
 */
export function leadRow(lead: ValidLead, identity: LeadIdentity, cipher: PiiCipher): NewLeadRow {
  const { person } = identity;
  const { fields } = lead;
  return {
    id: identity.id,
    publisher_id: identity.publisherId,
    clickid: fields.clickid,
    fingerprint: identity.fingerprint,
    status: 'processing',
    is_test: lead.test ? 1 : 0,
    claim_token: identity.claimToken,
    claimed_at: identity.now,
    created_at: identity.now,
    completed_at: null,
    price_floor_cents: lead.priceCents,
    loan_amount_cents: lead.loanAmountCents,
    income_net_monthly_cents: lead.incomeNetMonthlyCents,
    state: fields.state,
    ssn_hash: person.ssn,
    email_hash: person.email,
    phone_hash: person.phone,
    fields: JSON.stringify(pick(lead, false)),
    sensitive: cipher.encrypt(JSON.stringify(pick(lead, true))),
    tracking: JSON.stringify(lead.tracking),
    buyer_id: null,
    payout_cents: null,
    redirect_url: null,
    reason: null,
    processing_ms: null,
  };
}
