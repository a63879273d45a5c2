import type { BuyerAttempt, LeadRecord } from '../../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { SENSITIVE_LEAD_FIELDS } from '../../../common/lead-fields.js';
import type { BuyerAttemptRow, LeadRow } from '../db/schema.js';
import type { PiiCipher } from '../security/pii-cipher.js';

/** Everything but the last four characters becomes '*'; short values are hidden whole. */
export function maskValue(value: string): string {
  if (value.length <= 4) return '*'.repeat(value.length);
  return '*'.repeat(value.length - 4) + value.slice(-4);
}

/** A date of birth shows nothing at all: its last four characters are the birthday. */
function maskSensitive(field: string, value: string): string {
  return field === 'dob' ? '*'.repeat(value.length) : maskValue(value);
}

function attemptView(row: BuyerAttemptRow): BuyerAttempt {
  return {
    buyerId: row.buyer_id,
    startedAtMs: row.started_at,
    durationMs: row.duration_ms,
    outcome: row.outcome,
    httpStatus: row.http_status ?? 0,
    reason: row.reason ?? '',
    kind: row.kind,
    bidCents: row.bid_cents ?? 0,
    priceCents: row.price_cents ?? 0,
    reference: row.reference ?? '',
  };
}

const PURGED = '[purged]';

/**
 * The sensitive fields as shown: masked, or every one of them "[purged]" once
 * purged (which of them the lead carried went with the ciphertext).
 */
function sensitiveView(row: LeadRow, cipher: PiiCipher): Record<string, string> {
  if (row.sensitive_purged_at !== null) return Object.fromEntries(SENSITIVE_LEAD_FIELDS.map((field) => [field, PURGED]));
  const sensitive: Record<string, string> = JSON.parse(cipher.decrypt(row.sensitive));
  return Object.fromEntries(Object.entries(sensitive).map(([field, value]) => [field, maskSensitive(field, value)]));
}

/** A stored lead as operators see it: sensitive fields masked. */
export function leadView(row: LeadRow, attempts: BuyerAttemptRow[], cipher: PiiCipher): LeadRecord {
  const fields: Record<string, string> = { ...JSON.parse(row.fields), ...sensitiveView(row, cipher) };
  return {
    leadId: row.id,
    publisherId: row.publisher_id,
    clickid: row.clickid,
    status: row.status,
    test: row.is_test === 1,
    createdAtMs: row.created_at,
    completedAtMs: row.completed_at ?? 0,
    priceFloorCents: row.price_floor_cents,
    buyerId: row.buyer_id ?? '',
    payoutCents: row.payout_cents ?? 0,
    reason: row.reason ?? '',
    redirectUrl: row.redirect_url ?? '',
    processingMs: row.processing_ms ?? 0,
    fields,
    tracking: JSON.parse(row.tracking),
    attempts: attempts.map(attemptView),
  };
}
