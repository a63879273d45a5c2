import { LEAD_FIELDS, SENSITIVE_LEAD_FIELDS, type LeadField } from '../../../common/lead-fields.js';
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
}

/**
 * The stored form of a valid lead: sensitive fields encrypted together, keyed
 * hashes for duplicate checks, the rest as JSON.
 */
export function leadRow(lead: ValidLead, identity: LeadIdentity, cipher: PiiCipher, hasher: KeyedHasher): NewLeadRow {
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
    ssn_hash: hasher.hash('ssn', fields.ssn),
    email_hash: hasher.hash('email', fields.email.toLowerCase()),
    phone_hash: hasher.hash('phone', fields.cellPhone),
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

/** What a buyer receives: every sent field, normalized, sensitive ones included. */
export function buyerPayload(lead: ValidLead): Record<string, unknown> {
  return { ...pick(lead, false), ...pick(lead, true), tracking: lead.tracking };
}
