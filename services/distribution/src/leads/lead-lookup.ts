import type { AttemptRecord } from '../buyers/attempt-record.js';
import type { Db } from '../db/database.js';
import type { LeadRow, LeadStatus } from '../db/schema.js';
import { invalidField, StatusError } from '../errors.js';
import * as repository from './lead.repository.js';

/** Which leads a list covers; every filter left undefined matches every lead. */
export interface LeadFilter {
  status?: LeadStatus;
  publisherId?: string;
  /** The buyer a lead was sold to. */
  buyerId?: string;
  /** Created in [fromMs, toMs). */
  fromMs?: number;
  toMs?: number;
}

/** Newest first: the creation time, then the id, of the last lead of the previous page. */
export interface LeadListCursor {
  createdAt: number;
  id: string;
}

export interface FoundLead {
  row: LeadRow;
  attempts: AttemptRecord[];
}

/** Stored leads as operators look them up: by id, by the clickid a ticket quotes, or a filtered list. */
export class LeadLookup {
  constructor(private readonly db: Db) {}

  async get(leadId: string): Promise<FoundLead> {
    const row = await repository.findLead(this.db, leadId);
    if (!row) throw new StatusError('not_found', 'no such lead', { reason: 'LEAD_NOT_FOUND' });
    return this.withAttempts(row);
  }

  /** A publisher's lead by clickid; any publisher's when none is given, unless several used it. */
  async findByClickid(clickid: string, publisherId: string | undefined): Promise<FoundLead> {
    if (clickid === '') {
      throw invalidField('clickid', 'is required', { reason: 'CLICKID_REQUIRED', violationReason: 'FIELD_REQUIRED' });
    }
    let query = this.db.selectFrom('leads').selectAll().where('clickid', '=', clickid);
    if (publisherId !== undefined) query = query.where('publisher_id', '=', publisherId);
    const rows = await query.orderBy('created_at').limit(2).execute();
    if (rows.length === 0)
      throw new StatusError('not_found', 'no lead with this clickid', { reason: 'LEAD_NOT_FOUND' });
    if (rows.length > 1) {
      throw new StatusError('failed_precondition', 'several publishers sent this clickid: name the publisher', {
        reason: 'CLICKID_AMBIGUOUS',
      });
    }
    return this.withAttempts(rows[0]!);
  }

  /** Up to `limit` leads after the cursor, newest first. */
  async list(filter: LeadFilter, after: LeadListCursor | undefined, limit: number): Promise<LeadRow[]> {
    let query = this.db.selectFrom('leads').selectAll();
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.publisherId !== undefined) query = query.where('publisher_id', '=', filter.publisherId);
    if (filter.buyerId !== undefined) query = query.where('buyer_id', '=', filter.buyerId);
    if (filter.fromMs !== undefined) query = query.where('created_at', '>=', filter.fromMs);
    if (filter.toMs !== undefined) query = query.where('created_at', '<', filter.toMs);
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  private async withAttempts(row: LeadRow): Promise<FoundLead> {
    return { row, attempts: await repository.listBuyerAttempts(this.db, row.id) };
  }
}
