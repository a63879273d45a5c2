import { LEAD_FIELDS, type LeadField, SENSITIVE_LEAD_FIELDS } from '@leadflow/core/lead-fields';
import type { KeyedHasher } from '../security/keyed-hash.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import type { PersonHashes, StoredLead } from './stored-lead.js';
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
  /** Keyed hashes of who the lead is about, stored and used for duplicate checks. */
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
export function storedLead(lead: ValidLead, identity: LeadIdentity, cipher: PiiCipher): StoredLead {
  const { fields } = lead;
  return {
    id: identity.id,
    publisherId: identity.publisherId,
    clickid: fields.clickid,
    fingerprint: identity.fingerprint,
    status: 'processing',
    test: lead.test,
    claimToken: identity.claimToken,
    claimedAt: identity.now,
    createdAt: identity.now,
    completedAt: null,
    priceFloorCents: lead.priceCents,
    loanAmountCents: lead.loanAmountCents,
    incomeNetMonthlyCents: lead.incomeNetMonthlyCents,
    state: fields.state,
    person: identity.person,
    fieldsJson: JSON.stringify(pick(lead, false)),
    sensitive: cipher.encrypt(JSON.stringify(pick(lead, true))),
    sensitivePurgedAt: null,
    trackingJson: JSON.stringify(lead.tracking),
    buyerId: null,
    payoutCents: null,
    redirectUrl: null,
    reason: null,
    processingMs: null,
  };
}
