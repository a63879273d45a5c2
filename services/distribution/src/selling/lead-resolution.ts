import type { BuyerService } from '../buyers/buyer.service.js';
import { payoutFor } from '../buyers/rules/payout.js';
import type { Db } from '../db/database.js';
import type { LeadPostResolver } from '../db/schema.js';
import { invalidField, StatusError } from '../errors.js';
import * as repository from '../leads/lead.repository.js';
import type { StoredLead, UnconfirmedLead } from '../leads/stored-lead.js';
import { enqueuePublisherEvent } from '../postbacks/publisher-outbox.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { LeadPost } from './lead-post.js';
import { listLeadPosts, recordAnswer } from './lead-post.repository.js';
import { winnerOfPost } from './lead-recovery.js';
import { NO_BUYER_ACCEPTED } from './lead-seller.js';
import { releaseHolds } from './post-journal.js';
import { recordSale } from './sale-record.js';

export interface Resolution {
  leadId: string;
  status: 'sold' | 'rejected';
  buyerId: string;
  payoutCents: number;
}

/** How an unconfirmed lead ends: the buyer holds it (a sale, at the price its post carried or one given) or not. */
export type Verdict = { sold: true; chargeCents?: number } | { sold: false };

/**
 * Settles leads whose post went unanswered, on the word of the buyer's status lookup or of an operator:
 * a sale with its ledger entries, or a rejection that gives the buyer's caps and the person back. The
 * publisher's event is written in the settlement's transaction (postbacks/publisher-outbox.ts).
 */
export class LeadResolution {
  constructor(
    private readonly db: Db,
    private readonly buyers: BuyerService,
    private readonly publishers: PublisherService,
  ) {}

  /** Up to `limit` leads, oldest post first, after the one whose post is `after`. */
  async listUnconfirmed(limit: number, after?: { postedAt: number; postId: string }): Promise<UnconfirmedLead[]> {
    return repository.listUnconfirmedLeads(this.db, limit, after);
  }

  async countUnconfirmed(): Promise<number> {
    return repository.countUnconfirmedLeads(this.db);
  }

  async resolve(leadId: string, verdict: Verdict, resolver: LeadPostResolver): Promise<Resolution> {
    const lead = await repository.findLead(this.db, leadId);
    if (!lead) throw new StatusError('not_found', 'no such lead');
    if (lead.status !== 'unconfirmed')
      throw new StatusError('failed_precondition', `the lead is ${lead.status}, not unconfirmed`);
    const post = (await listLeadPosts(this.db, leadId)).find((candidate) =>
      ['pending', 'unknown', 'accepted'].includes(candidate.state),
    );
    if (!post) throw new StatusError('failed_precondition', 'the lead has no post awaiting an answer');
    const now = Date.now();
    if (post.state === 'accepted') return this.sell(lead, post, now);
    if (!verdict.sold) return this.decline(lead, post, resolver, now);

    const chargeCents = post.chargeCents ?? verdict.chargeCents;
    if (chargeCents === undefined || chargeCents <= 0) {
      throw invalidField('charge_cents', 'is required: the post carried no price, give the price the buyer pays', {
        message: 'the post carried no price: give the price the buyer pays',
        reason: 'PRICE_REQUIRED',
        violationReason: 'FIELD_REQUIRED',
      });
    }
    const payoutCents = post.payoutCents ?? (await this.payout(lead, post.buyerId, chargeCents));
    await recordAnswer(this.db, post.id, { state: 'accepted', chargeCents, payoutCents, resolvedBy: resolver }, now);
    return this.sell(lead, { ...post, state: 'accepted', chargeCents, payoutCents }, now);
  }

  private async sell(lead: StoredLead, post: LeadPost, now: number): Promise<Resolution> {
    const winner = winnerOfPost(post);
    await this.db.transaction().execute(async (trx) => {
      await recordSale(trx, { id: lead.id, publisherId: lead.publisherId, test: lead.test }, winner, [], null, now);
      await enqueuePublisherEvent(
        trx,
        { ...eventLead(lead), status: 'sold', payoutCents: winner.payoutCents, buyerId: winner.buyerId },
        now,
      );
    });
    return { leadId: lead.id, status: 'sold', buyerId: winner.buyerId, payoutCents: winner.payoutCents };
  }

  private async decline(
    lead: StoredLead,
    post: LeadPost,
    resolver: LeadPostResolver,
    now: number,
  ): Promise<Resolution> {
    await recordAnswer(this.db, post.id, { state: 'rejected', resolvedBy: resolver }, now);
    await this.db.transaction().execute(async (trx) => {
      const outcome = { status: 'rejected', completedAt: now, reason: NO_BUYER_ACCEPTED } as const;
      if (!(await repository.settleLead(trx, lead.id, outcome))) {
        throw new StatusError('failed_precondition', 'the lead was settled meanwhile');
      }
      await enqueuePublisherEvent(
        trx,
        { ...eventLead(lead), status: 'rejected', payoutCents: 0, reason: outcome.reason },
        now,
      );
    });
    if (!lead.test) {
      const buyer = await this.buyers.get(post.buyerId);
      await releaseHolds(this.db, lead.id, buyer, lead.person);
    }
    return { leadId: lead.id, status: 'rejected', buyerId: post.buyerId, payoutCents: 0 };
  }

  private async payout(lead: StoredLead, buyerId: string, chargeCents: number): Promise<number> {
    const [buyer, publisher] = await Promise.all([this.buyers.get(buyerId), this.publishers.get(lead.publisherId)]);
    const payout = payoutFor(buyer.definition.payout, lead.publisherId, chargeCents, publisher.payoutShareBps);
    if (payout === undefined)
      throw new StatusError('failed_precondition', "the buyer's payout policy gives no payout for this price");
    return payout;
  }
}

function eventLead(lead: StoredLead) {
  return { publisherId: lead.publisherId, leadId: lead.id, clickid: lead.clickid, test: lead.test };
}
