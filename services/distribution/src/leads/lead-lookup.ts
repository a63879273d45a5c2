import type { Db } from '../db/database.js';
import { invalidField, StatusError } from '../errors.js';
import type { AttemptRecord, PostSettlement } from './attempt-record.js';
import type { LeadFilter, LeadListCursor } from './lead.repository.js';
import * as repository from './lead.repository.js';
import type { StoredLead } from './stored-lead.js';

export interface FoundLead {
  lead: StoredLead;
  attempts: AttemptRecord[];
  settlements: PostSettlement[];
}

/** Stored leads as operators look them up: by id, by the clickid a ticket quotes, or a filtered list. */
export class LeadLookup {
  constructor(private readonly db: Db) {}

  async get(leadId: string): Promise<FoundLead> {
    const lead = await repository.findLead(this.db, leadId);
    if (!lead) throw new StatusError('not_found', 'no such lead', { reason: 'LEAD_NOT_FOUND' });
    return this.withAttempts(lead);
  }

  /** A publisher's lead by clickid; any publisher's when none is given, unless several used it. */
  async findByClickid(clickid: string, publisherId: string | undefined): Promise<FoundLead> {
    if (clickid === '') {
      throw invalidField('clickid', 'is required', { reason: 'CLICKID_REQUIRED', violationReason: 'FIELD_REQUIRED' });
    }
    const leads = await repository.findLeadsByClickid(this.db, clickid, publisherId, 2);
    if (leads.length === 0)
      throw new StatusError('not_found', 'no lead with this clickid', { reason: 'LEAD_NOT_FOUND' });
    if (leads.length > 1) {
      throw new StatusError('failed_precondition', 'several publishers sent this clickid: name the publisher', {
        reason: 'CLICKID_AMBIGUOUS',
      });
    }
    return this.withAttempts(leads[0]!);
  }

  /** Up to `limit` leads after the cursor, newest first. */
  async list(filter: LeadFilter, after: LeadListCursor | undefined, limit: number): Promise<StoredLead[]> {
    return repository.listLeads(this.db, filter, after, limit);
  }

  private async withAttempts(lead: StoredLead): Promise<FoundLead> {
    const [attempts, settlements] = await Promise.all([
      repository.listBuyerAttempts(this.db, lead.id),
      repository.listPostSettlements(this.db, lead.id),
    ]);
    return { lead, attempts, settlements };
  }
}
