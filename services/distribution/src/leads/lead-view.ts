import { isLeadField, leadFieldFacts, SENSITIVE_LEAD_FIELDS } from '@leadflow/core/lead-fields';
import type { BuyerAttempt, LeadRecord } from '@leadflow/proto/leadflow/admin/v1/leads';
import { attemptKinds, attemptOutcomes, leadStatuses } from '@leadflow/service-kit/admin-enums';
import { durationOfMs, timestampOfMs } from '@leadflow/service-kit/proto-time';
import type { PiiCipher } from '../security/pii-cipher.js';
import type { AttemptRecord, PostSettlement } from './attempt-record.js';
import type { StoredLead } from './stored-lead.js';

/**
 * Everything but the last four characters becomes '*'; short values are hidden whole. Characters are
 * code points, as validation counts them: a mask never splits an emoji into half a surrogate pair.
 */
function maskCharacters(characters: readonly string[]): string {
  if (characters.length <= 4) return '*'.repeat(characters.length);
  return '*'.repeat(characters.length - 4) + characters.slice(-4).join('');
}

/**
 * Enough to recognise a lead, never enough to find the person: as the catalogue says for a personal
 * field, undefined for any other. A date of birth's last four characters are the birthday; a street
 * address or an IP is hidden whole.
 */
function maskSensitive(field: string, value: string): string | undefined {
  const characters = Array.from(value);
  switch (isLeadField(field) ? leadFieldFacts(field).mask : undefined) {
    case 'whole':
      return '*'.repeat(characters.length);
    case 'initial':
      return (characters[0] ?? '') + '*'.repeat(Math.max(0, characters.length - 1));
    case 'email': {
      // Validation takes ASCII addresses only: units are characters.
      const at = value.lastIndexOf('@');
      return at < 1 ? maskCharacters(characters) : value.slice(0, 1) + '*'.repeat(at - 1) + value.slice(at);
    }
    case 'lastFour':
      return maskCharacters(characters);
    case undefined:
      return undefined;
  }
}

/**
 * One line of the audit trail. A post settled after its call shows who settled it and, when that made it a
 * sale or not, the settlement as its outcome: the call's own line says only that no answer came in time.
 */
function attemptView(attempt: AttemptRecord, settlement: PostSettlement | undefined): BuyerAttempt {
  const settledAs = settlement?.state === 'accepted' || settlement?.state === 'rejected' ? settlement.state : undefined;
  const priceCents = settledAs === 'accepted' ? settlement?.chargeCents : attempt.priceCents;
  return {
    buyerId: attempt.buyerId,
    startTime: new Date(attempt.startedAt),
    duration: durationOfMs(attempt.durationMs),
    outcome: attemptOutcomes.valueOf(settledAs ?? attempt.outcome),
    httpStatus: attempt.httpStatus ?? 0,
    reason: attempt.reason ?? '',
    kind: attemptKinds.valueOf(attempt.kind),
    bidCents: attempt.bidCents ?? 0,
    priceCents: priceCents ?? 0,
    reference: attempt.reference ?? '',
    resolvedBy: settlement?.resolvedBy ?? '',
  };
}

/** How `attempt` was settled, when it is a post settled after its call (a lead is posted to a buyer once). */
function settlementOf(attempt: AttemptRecord, settlements: readonly PostSettlement[]): PostSettlement | undefined {
  return attempt.kind === 'post' ? settlements.find((settled) => settled.buyerId === attempt.buyerId) : undefined;
}

const PURGED = '[purged]';

/**
 * The fields as shown: personal ones masked, or every one of them "[purged]"
 * once purged (which of them the lead carried went with the ciphertext). A
 * personal field a lead of an older release still keeps in plain text is
 * masked the same way.
 */
function fieldsView(lead: StoredLead, cipher: PiiCipher): Record<string, string> {
  const fields: Record<string, string> = JSON.parse(lead.fieldsJson);
  if (lead.sensitivePurgedAt !== null) {
    return { ...fields, ...Object.fromEntries(SENSITIVE_LEAD_FIELDS.map((field) => [field, PURGED])) };
  }
  const all: Record<string, string> = { ...fields, ...JSON.parse(cipher.decrypt(lead.sensitive)) };
  return Object.fromEntries(Object.entries(all).map(([field, value]) => [field, maskSensitive(field, value) ?? value]));
}

/** A stored lead as operators see it: personal fields masked, its posts as they were settled. */
export function leadView(
  lead: StoredLead,
  attempts: AttemptRecord[],
  cipher: PiiCipher,
  settlements: readonly PostSettlement[] = [],
): LeadRecord {
  const fields = fieldsView(lead, cipher);
  return {
    leadId: lead.id,
    publisherId: lead.publisherId,
    clickid: lead.clickid,
    status: leadStatuses.valueOf(lead.status),
    test: lead.test,
    createTime: new Date(lead.createdAt),
    completeTime: timestampOfMs(lead.completedAt),
    priceFloorCents: lead.priceFloorCents,
    buyerId: lead.buyerId ?? '',
    payoutCents: lead.payoutCents ?? 0,
    reason: lead.reason ?? '',
    redirectUrl: lead.redirectUrl ?? '',
    processingTime: lead.processingMs === null ? undefined : durationOfMs(lead.processingMs),
    fields,
    tracking: JSON.parse(lead.trackingJson),
    attempts: attempts.map((attempt) => attemptView(attempt, settlementOf(attempt, settlements))),
    // Returns are another room's: the admin handlers add the lead's.
    leadReturn: undefined,
  };
}
