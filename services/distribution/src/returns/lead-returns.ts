import type { Buyer } from '../buyers/buyer.js';
import type { BuyerService } from '../buyers/buyer.service.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import { executeTogether } from '../db/statements-together.js';
import { invalidField, StatusError } from '../errors.js';
import { newId } from '../ids.js';
import * as leads from '../leads/lead.repository.js';
import type { StoredLead } from '../leads/stored-lead.js';
import { enqueuePublisherEvent } from '../postbacks/publisher-outbox.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import { ledgerInsert } from '../selling/ledger.repository.js';
import { capPeriodStart, clawbackCents, type LeadReturn, returnEntries, withinWindow } from './lead-return.js';
import * as repository from './lead-return.repository.js';

const MAX_REQUEST_ID = 64;
const MAX_NOTE = 500;

/** A return as an operator or a lender's file asks for it. */
export interface ReturnRequest {
  requestId: string;
  /** The lead by id, or by clickid and the buyer (id or name) it was sold to. */
  leadId: string;
  clickid: string;
  buyer: string;
  reason: string;
  note: string;
  /** 0: the whole charge. */
  creditCents: number;
  dryRun: boolean;
}

export interface ReturnOutcome {
  leadReturn: LeadReturn;
  /** The request id had already recorded this return: a retry. */
  alreadyRecorded: boolean;
}

const refused = (reason: string, message: string) => new StatusError('failed_precondition', message, { reason });

function checkRequest(request: ReturnRequest): void {
  if (request.requestId === '' || request.requestId.length > MAX_REQUEST_ID) {
    throw invalidField('request_id', `is required, at most ${MAX_REQUEST_ID} characters`);
  }
  if (request.leadId === '' && (request.clickid === '' || request.buyer === '')) {
    throw invalidField('lead_id', 'is required, or clickid and buyer', { reason: 'LEAD_REQUIRED' });
  }
  if (request.reason === '') throw invalidField('reason', 'is required');
  if (request.note.length > MAX_NOTE) throw invalidField('note', `must be at most ${MAX_NOTE} characters`);
  if (!Number.isSafeInteger(request.creditCents) || request.creditCents < 0) {
    throw invalidField('credit_cents', 'must be a whole number of cents, 0 for the whole charge');
  }
}

/**
 * Buyers' returns of sold leads: checked against the buyer's return terms, booked once in reversing
 * ledger entries (see docs/returns.md). A lead is returned at most once: the unique lead id of
 * lead_returns decides between two instances recording it at the same moment.
 */
export class LeadReturns {
  constructor(
    private readonly db: Db,
    private readonly buyers: BuyerService,
    private readonly publishers: PublisherService,
    private readonly onRecorded: (leadReturn: LeadReturn) => void = () => {},
  ) {}

  async record(request: ReturnRequest, now = Date.now()): Promise<ReturnOutcome> {
    checkRequest(request);
    const earlier = await repository.findReturnOfRequest(this.db, request.requestId);
    if (earlier) return this.replayed(earlier, request);
    const named = request.buyer === '' ? undefined : await this.buyers.get(request.buyer);
    const lead = await this.findLead(request, named);
    const leadReturn = await this.priced(request, lead, named, now);
    if (request.dryRun) return { leadReturn, alreadyRecorded: false };
    try {
      await this.db.transaction().execute(async (trx) => {
        await executeTogether(trx, [
          repository.returnInsert(trx, leadReturn),
          ledgerInsert(trx, returnEntries(leadReturn)),
        ]);
        await enqueuePublisherEvent(
          trx,
          {
            publisherId: lead.publisherId,
            leadId: lead.id,
            clickid: lead.clickid,
            status: 'returned',
            payoutCents: leadReturn.clawbackCents,
            buyerId: leadReturn.buyerId,
            reason: leadReturn.reason,
            test: lead.test,
          },
          now,
        );
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another request (perhaps on another instance) got there first: a retry of this one, or another return.
      const first = await repository.findReturnOfRequest(this.db, request.requestId);
      if (first) return this.replayed(first, request);
      throw alreadyReturned(lead.id);
    }
    this.onRecorded(leadReturn);
    return { leadReturn, alreadyRecorded: false };
  }

  /** The lead's return, if it was returned. */
  ofLead(leadId: string): Promise<LeadReturn | undefined> {
    return repository.findReturnOfLead(this.db, leadId);
  }

  private replayed(earlier: LeadReturn, request: ReturnRequest): ReturnOutcome {
    if (request.leadId !== '' && request.leadId !== earlier.leadId) {
      throw new StatusError('already_exists', 'this request id recorded the return of another lead', {
        reason: 'REQUEST_ID_REUSED',
      });
    }
    return { leadReturn: earlier, alreadyRecorded: true };
  }

  private async findLead(request: ReturnRequest, named: Buyer | undefined): Promise<StoredLead> {
    if (request.leadId !== '') {
      const lead = await leads.findLead(this.db, request.leadId);
      if (!lead) throw new StatusError('not_found', 'no such lead', { reason: 'LEAD_NOT_FOUND' });
      return lead;
    }
    // A clickid is the publisher's: several publishers may have used it, but a buyer bought it once.
    const found = await leads.findLeadsByClickid(this.db, request.clickid, undefined, 100);
    const lead = found.find((candidate) => candidate.buyerId === named!.id) ?? found[0];
    if (!lead) throw new StatusError('not_found', 'no lead with this clickid', { reason: 'LEAD_NOT_FOUND' });
    return lead;
  }

  /** The return the request asks for, or the reason it is refused. */
  private async priced(
    request: ReturnRequest,
    lead: StoredLead,
    named: Buyer | undefined,
    now: number,
  ): Promise<LeadReturn> {
    const sale = lead.status === 'sold' && !lead.test ? await repository.findSale(this.db, lead.id) : undefined;
    if (!sale) throw refused('LEAD_NOT_SOLD', `lead ${lead.id} was not sold (${lead.test ? 'test' : lead.status})`);
    if (named && named.id !== sale.buyerId) {
      throw refused('SOLD_TO_ANOTHER_BUYER', `lead ${lead.id} was sold to another buyer, not ${named.definition.name}`);
    }
    if (await repository.findReturnOfLead(this.db, lead.id)) throw alreadyReturned(lead.id);
    const buyer = named ?? (await this.buyers.get(sale.buyerId));
    const terms = buyer.definition.returns;
    const name = buyer.definition.name;
    if (!terms) throw refused('RETURNS_NOT_ACCEPTED', `buyer ${name} has no return terms in the buyer file`);
    if (!terms.reasons.includes(request.reason)) {
      throw refused(
        'RETURN_REASON_UNKNOWN',
        `"${request.reason}" is not a return reason of buyer ${name}: ${terms.reasons.join(', ')}`,
      );
    }
    const timezone = buyer.definition.schedule?.timezone ?? 'UTC';
    if (!withinWindow(terms, sale.soldAt, now, timezone)) {
      throw refused(
        'RETURN_WINDOW_CLOSED',
        `buyer ${name} may return a lead until ${terms.windowDays} days after its day of sale (${timezone}); ` +
          `lead ${lead.id} was sold ${new Date(sale.soldAt).toISOString()}`,
      );
    }
    const creditCents = request.creditCents === 0 ? sale.chargeCents : request.creditCents;
    if (creditCents > sale.chargeCents) {
      throw invalidField('credit_cents', 'must be at most what the buyer was charged', {
        reason: 'CREDIT_OVER_CHARGE',
        metadata: { chargeCents: String(sale.chargeCents) },
      });
    }
    const since = capPeriodStart(terms, now);
    if (terms.maxRate && since !== undefined) {
      const { bought, returned } = await repository.purchasesAndReturns(this.db, sale.buyerId, since);
      if ((returned + 1) * 100 > terms.maxRate.percent * bought) {
        throw refused(
          'RETURN_CAP_REACHED',
          `buyer ${name} may return at most ${terms.maxRate.percent}% of the leads it bought in ` +
            `${terms.maxRate.periodDays} days: it has returned ${returned} of ${bought}`,
        );
      }
    }
    const publisher = await this.publishers.get(sale.publisherId);
    const clawback = clawbackCents(sale, creditCents, publisher.clawbackBps);
    return {
      id: request.dryRun ? '' : newId('ret', now),
      leadId: lead.id,
      requestId: request.requestId,
      buyerId: sale.buyerId,
      publisherId: sale.publisherId,
      reason: request.reason,
      note: request.note,
      creditCents,
      clawbackCents: clawback,
      marginCents: creditCents - clawback,
      soldAt: sale.soldAt,
      returnedAt: now,
    };
  }
}

function alreadyReturned(leadId: string): StatusError {
  return new StatusError('already_exists', `lead ${leadId} has already been returned`, {
    reason: 'LEAD_ALREADY_RETURNED',
  });
}
