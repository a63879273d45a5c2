import type { BuyerService } from '../buyers/buyer.service.js';
import { payoutFor } from '../buyers/rules/payout.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import type { LeadPostResolver } from '../db/schema.js';
import { executeTogether } from '../db/statements-together.js';
import { invalidField, StatusError } from '../errors.js';
import * as repository from '../leads/lead.repository.js';
import type { StoredLead, UnconfirmedLead } from '../leads/stored-lead.js';
import { enqueuePublisherEvent } from '../postbacks/publisher-outbox.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { LeadPost } from './lead-post.js';
import { answerUpdate, listLeadPosts, recordAnswer } from './lead-post.repository.js';
import { winnerOfPost } from './lead-recovery.js';
import { NO_BUYER_ACCEPTED, type SaleWinner } from './lead-seller.js';
import { releaseHolds } from './post-journal.js';
import { LeadNotRecordable, recordSale } from './sale-record.js';

/** Why a lead closed by its buyer's settleAfter was not sold: the buyer never said, one way or the other. */
const NOT_CONFIRMED_IN_TIME =
  'The buyer did not confirm the lead within its settlement time; the lead was closed as not sold';

export interface Resolution {
  leadId: string;
  status: 'sold' | 'rejected';
  buyerId: string;
  payoutCents: number;
}

/** The buyer's own acceptance of its post, come after the sale's deadline: its price and redirect, as given. */
export interface LateAcceptance {
  chargeCents: number;
  payoutCents: number;
  redirectUrl: string;
  reference?: string;
}

/**
 * How an unconfirmed lead ends: the buyer holds it (a sale, at the price its post carried or one given,
 * or as its late answer says) or not.
 */
export type Verdict =
  | { sold: true; chargeCents?: number; answer?: LateAcceptance }
  | { sold: false; reference?: string };

/**
 * Settles leads whose post went unanswered, on the word of the buyer's late answer, its status lookup,
 * an operator or the buyer's settleAfter policy: a sale with its ledger entries, or a rejection that gives
 * the buyer's caps and the person back. Every write is conditional on the post still awaiting its answer
 * and the lead still held, in one transaction with the lead's outcome: of resolutions racing for a post
 * (a late answer, the reconciler, an operator, another instance), one wins and the others fail with
 * `failed_precondition`, changing nothing. The publisher's event is written in the same transaction
 * (postbacks/publisher-outbox.ts).
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

  /** Up to `limit` leads held for `buyerId` by a post made before `postedBefore`, oldest first. */
  async listHeldSince(buyerId: string, postedBefore: number, limit: number): Promise<UnconfirmedLead[]> {
    return repository.listUnconfirmedLeads(this.db, limit, undefined, { buyerId, postedBefore });
  }

  async countUnconfirmed(): Promise<number> {
    return repository.countUnconfirmedLeads(this.db);
  }

  /** When the longest-held lead's post was made (epoch ms); undefined when no lead is held. */
  async oldestUnconfirmedPostAt(): Promise<number | undefined> {
    return repository.oldestUnconfirmedPostAt(this.db);
  }

  /** `postId`: settle only that post (a late answer speaks for its own post alone). */
  async resolve(leadId: string, verdict: Verdict, resolver: LeadPostResolver, postId?: string): Promise<Resolution> {
    const lead = await repository.findLead(this.db, leadId);
    if (!lead) throw new StatusError('not_found', 'no such lead');
    if (lead.status !== 'unconfirmed')
      throw new StatusError('failed_precondition', `the lead is ${lead.status}, not unconfirmed`);
    const post = (await listLeadPosts(this.db, leadId)).find((candidate) =>
      ['pending', 'unknown', 'accepted'].includes(candidate.state),
    );
    if (!post || (postId !== undefined && post.id !== postId))
      throw new StatusError('failed_precondition', 'the lead has no post awaiting an answer');
    if (verdict.sold && verdict.chargeCents !== undefined && post.chargeCents !== null)
      throw priceAlreadySet(post.chargeCents);
    const now = Date.now();
    if (post.state === 'accepted') return this.sell(lead, post, undefined, now);
    if (!verdict.sold) return this.decline(lead, post, verdict.reference, resolver, now);

    if (verdict.answer) return this.sell(lead, post, { ...verdict.answer, resolvedBy: resolver }, now);
    const chargeCents = post.chargeCents ?? verdict.chargeCents;
    if (chargeCents === undefined || chargeCents <= 0) {
      throw invalidField('charge_cents', 'is required: the post carried no price, give the price the buyer pays', {
        message: 'the post carried no price: give the price the buyer pays',
        reason: 'PRICE_REQUIRED',
        violationReason: 'FIELD_REQUIRED',
      });
    }
    const payoutCents = post.payoutCents ?? (await this.payout(lead, post.buyerId, chargeCents));
    const redirectUrl = post.redirectUrl ?? '';
    return this.sell(lead, post, { chargeCents, payoutCents, redirectUrl, resolvedBy: resolver }, now);
  }

  /** The sale of the post, with `acceptance` recorded in its transaction when the post has none yet. */
  private async sell(
    lead: StoredLead,
    post: LeadPost,
    acceptance: (LateAcceptance & { resolvedBy: LeadPostResolver }) | undefined,
    now: number,
  ): Promise<Resolution> {
    const answer = acceptance && { state: 'accepted' as const, ...acceptance };
    const winner: SaleWinner = {
      ...winnerOfPost(answer ? { ...post, ...answer } : post),
      ...(answer && {
        acceptance: { answer, storeAlone: async () => void (await recordAnswer(this.db, post.id, answer, now)) },
      }),
    };
    await settledOnce(() =>
      this.db.transaction().execute(async (trx) => {
        await recordSale(trx, { id: lead.id, publisherId: lead.publisherId, test: lead.test }, winner, [], null, now);
        await enqueuePublisherEvent(
          trx,
          { ...eventLead(lead), status: 'sold', payoutCents: winner.payoutCents, buyerId: winner.buyerId },
          now,
        );
      }),
    );
    return { leadId: lead.id, status: 'sold', buyerId: winner.buyerId, payoutCents: winner.payoutCents };
  }

  private async decline(
    lead: StoredLead,
    post: LeadPost,
    reference: string | undefined,
    resolver: LeadPostResolver,
    now: number,
  ): Promise<Resolution> {
    const buyer = lead.test ? undefined : await this.buyers.get(post.buyerId);
    const reason = resolver === 'settle_after' ? NOT_CONFIRMED_IN_TIME : NO_BUYER_ACCEPTED;
    // The holds go back in the settlement's transaction: a lead seen rejected holds nothing.
    await settledOnce(() =>
      this.db.transaction().execute(async (trx) => {
        const [answered, settled] = await executeTogether(trx, [
          answerUpdate(trx, post.id, { state: 'rejected', reference, resolvedBy: resolver }, now),
          repository.settlementUpdate(trx, lead.id, {
            status: 'rejected',
            completedAt: now,
            reason,
          }),
        ]);
        if (!answered.numAffectedRows || !settled.numAffectedRows) throw new LeadNotRecordable();
        if (buyer) await releaseHolds(trx, lead.id, buyer, lead.person);
        await enqueuePublisherEvent(trx, { ...eventLead(lead), status: 'rejected', payoutCents: 0, reason }, now);
      }),
    );
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

/**
 * A price given for a post that carried one (a fixed or rules price, a ping's bid, or its answer's): the sale
 * is at the post's price, so a price given is a mistake, never silently dropped.
 */
function priceAlreadySet(postChargeCents: number): StatusError {
  return invalidField('charge_cents', "must be 0: the post carried the buyer's price", {
    message: `the post carried the buyer's price (${postChargeCents} cents): give no price`,
    reason: 'PRICE_ALREADY_SET',
    metadata: { chargeCents: String(postChargeCents) },
  });
}

function eventLead(lead: StoredLead) {
  return { publisherId: lead.publisherId, leadId: lead.id, clickid: lead.clickid, test: lead.test };
}

/** Runs a resolution's transaction; another resolution that won the race makes it a failed precondition. */
async function settledOnce(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (error instanceof LeadNotRecordable || isDuplicateKeyError(error))
      throw new StatusError('failed_precondition', 'the lead was settled meanwhile');
    throw error;
  }
}
