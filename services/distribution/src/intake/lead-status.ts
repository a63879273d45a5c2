import type { Db } from '../db/database.js';
import { StatusError } from '../errors.js';
import { findLeadByClickid } from '../leads/lead.repository.js';
import { normalizedClickid } from '../leads/validation.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import { findReturnOfLead } from '../returns/lead-return.repository.js';
import { isStaleClaim } from '../selling/sale-claim.js';
import { storedOutcome } from './intake-outcome.js';

export type LeadStatusAnswer =
  | { kind: 'sold'; leadId: string; payoutCents: number; buyerId: string; redirectUrl: string }
  | { kind: 'rejected'; leadId: string; reason: string }
  /** No final outcome yet: held for a buyer's confirmation, still being sold, or waiting for a retry. */
  | { kind: 'pending'; leadId: string; reason: string }
  /** Sold, then returned by its buyer: what the return took back of the payout, and its reason code. */
  | { kind: 'returned'; leadId: string; clawbackCents: number; buyerId: string; reason: string };

export const STILL_BEING_SOLD = 'the lead is still being sold';
/** A lead whose call ended without an outcome (a deadline too short to sell, a failed step): no one sells it now. */
export const AWAITING_RETRY =
  'the lead is not sold yet and no request is selling it: send it again with the same clickid to sell it';

/** What a publisher may learn of its own lead by clickid: its outcome now, never another publisher's lead. */
export class LeadStatusLookup {
  constructor(
    private readonly db: Db,
    private readonly publishers: PublisherService,
    private readonly sellDeadlineMs: number,
  ) {}

  async statusOf(webmasterKey: string, clickid: string): Promise<LeadStatusAnswer> {
    const publisher = await this.publishers.resolveKey(webmasterKey);
    if (!publisher)
      throw new StatusError('unauthenticated', 'invalid webmaster key', { reason: 'INVALID_WEBMASTER_KEY' });
    const stored = normalizedClickid(clickid);
    const lead = stored === undefined ? undefined : await findLeadByClickid(this.db, publisher.publisherId, stored);
    if (!lead) throw new StatusError('not_found', 'no lead with this clickid', { reason: 'LEAD_NOT_FOUND' });
    const outcome = storedOutcome(lead);
    if (outcome?.kind === 'sold') return (await this.returnOf(lead.id)) ?? outcome;
    if (outcome?.kind === 'rejected') return outcome;
    const reason =
      outcome?.kind === 'unconfirmed'
        ? outcome.reason
        : isStaleClaim(lead, this.sellDeadlineMs, Date.now())
          ? AWAITING_RETRY
          : STILL_BEING_SOLD;
    return { kind: 'pending', leadId: lead.id, reason };
  }

  /** A sold lead's return, in the terms of the publisher's lead.returned postback. */
  private async returnOf(leadId: string): Promise<LeadStatusAnswer | undefined> {
    const leadReturn = await findReturnOfLead(this.db, leadId);
    return (
      leadReturn && {
        kind: 'returned',
        leadId,
        clawbackCents: leadReturn.clawbackCents,
        buyerId: leadReturn.buyerId,
        reason: leadReturn.reason,
      }
    );
  }
}
