import { StatusError } from '../errors.js';
import type { StoredLead } from '../leads/stored-lead.js';
import { AWAITING_CONFIRMATION, type SaleWinner } from '../selling/lead-seller.js';

export type IntakeOutcome =
  | { kind: 'sold'; leadId: string; payoutCents: number; buyerId: string; redirectUrl: string }
  | { kind: 'rejected'; leadId: string; reason: string }
  /** A post's answer never came: the lead is held for that buyer until it is resolved. */
  | { kind: 'unconfirmed'; leadId: string; reason: string }
  /** JSON field name -> message; `clickidReused`: the clickid names an earlier lead with another body. */
  | { kind: 'invalid'; errors: Record<string, string>; clickidReused: boolean };

export interface IntakeResult {
  outcome: IntakeOutcome;
  buyerWaitMs: number;
  replayed: boolean;
}

export const CLICKID_REUSED = 'was already used for a different lead';
/** A retry of a lead another request is still selling: worth retrying soon with the same body. */
export const LEAD_IN_PROGRESS = { reason: 'LEAD_IN_PROGRESS', retryDelayMs: 250 };

/** The stored answer of a lead that has one. */
export function storedOutcome(lead: StoredLead): IntakeOutcome | undefined {
  switch (lead.status) {
    case 'sold':
      return {
        kind: 'sold',
        leadId: lead.id,
        payoutCents: lead.payoutCents ?? 0,
        buyerId: lead.buyerId ?? '',
        redirectUrl: lead.redirectUrl ?? '',
      };
    case 'rejected':
      return { kind: 'rejected', leadId: lead.id, reason: lead.reason ?? '' };
    case 'unconfirmed':
      return { kind: 'unconfirmed', leadId: lead.id, reason: lead.reason ?? AWAITING_CONFIRMATION };
    case 'processing':
      return undefined;
  }
}

/** The stored answer, replayed to a retry; a lead still being sold is worth a retry soon. */
export function replay(lead: StoredLead): IntakeResult {
  const outcome = storedOutcome(lead);
  if (!outcome) throw new StatusError('unavailable', 'lead is still being processed: retry', LEAD_IN_PROGRESS);
  return { outcome, buyerWaitMs: 0, replayed: true };
}

export function soldOutcome(leadId: string, winner: SaleWinner): IntakeOutcome {
  return {
    kind: 'sold',
    leadId,
    payoutCents: winner.payoutCents,
    buyerId: winner.buyerId,
    redirectUrl: winner.redirectUrl,
  };
}
