import { crashPoint } from '@leadflow/service-kit/crash-points';
import type { Buyer } from '../buyers/buyer.js';
import { type CommitDurability, commitDurability } from '../db/commit-durability.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import { plannedWrite } from '../db/statements-together.js';
import { newId } from '../ids.js';
import type { PersonHashes } from '../leads/stored-lead.js';
import type { SkipReason } from './attempt-log.js';
import { adjustSpend, releaseCapacity, reserveCapacity, spendHeadroom } from './cap.repository.js';
import type { CapPeriod } from './cap-periods.js';
import { holdPerson, releasePerson } from './duplicates.js';
import { answerUpdate, type IntentRefusal, intentWrite, type PostAnswer } from './lead-post.repository.js';
import type { UnstoredAcceptance } from './lead-seller.js';

/** The lead side of a post: who holds the lead, and what to hold of the buyer. */
export interface PostingLead {
  leadId: string;
  claimToken: string;
  person: PersonHashes;
  /** Test leads hold no caps and no person. */
  live: boolean;
}

export interface PostOffer {
  buyer: Buyer;
  periods: CapPeriod[];
  /** Known before the post for a fixed, rule or bid price; else the answer names it. */
  chargeCents: number | undefined;
  payoutCents: number | undefined;
}

/** A post whose intent is committed: it may now go to the buyer. */
export interface OpenPost {
  /** The attempt id: the intent's key and the idempotency reference the buyer may be sent. */
  id: string;
  lead: PostingLead;
  offer: PostOffer;
  /** What is held against the buyer's spend caps. */
  heldSpend: number;
}

export type OpenResult = { post: OpenPost } | { skip: SkipReason } | { stop: IntentRefusal };

/** Backoff between tries of an answer's record while storage fails. */
const RECORD_RETRY_MS = [20, 50, 100, 200, 400, 800];

/**
 * The durable steps of posting a lead: the buyer's caps and the person held, then the intent committed,
 * before anything reaches the buyer; any other answer recorded as soon as it arrives, an acceptance with
 * the sale. What a post holds is given back here, and only when its answer says the buyer did not take
 * the lead.
 */
export class PostJournal {
  private readonly durability: CommitDurability;

  /** `writes`: the intents and answers share their commits with other leads' writes (group commit). */
  constructor(
    private readonly db: Db,
    private readonly writes: GroupCommit,
  ) {
    this.durability = commitDurability(db);
  }

  /**
   * Holds what the post needs and commits its intent. `mayCall` is asked last, once everything is held
   * (a circuit breaker's half-open probe must be followed by a call).
   */
  async open(lead: PostingLead, offer: PostOffer, mayCall: () => boolean): Promise<OpenResult> {
    const { buyer } = offer;
    const heldSpend = lead.live ? await this.spendToHold(offer) : 0;
    const refused = lead.live ? await this.hold(lead, offer, heldSpend) : undefined;
    if (refused) return { skip: refused };
    const post: OpenPost = { id: newId('pst'), lead, offer, heldSpend };
    if (!mayCall()) {
      await this.release(post);
      return { skip: 'circuit_open' };
    }
    crashPoint('before-intent');
    const intent = {
      id: post.id,
      leadId: lead.leadId,
      buyerId: buyer.id,
      claimToken: lead.claimToken,
      chargeCents: offer.chargeCents,
      payoutCents: offer.payoutCents,
      createdAt: Date.now(),
    };
    let refusal: IntentRefusal | undefined;
    try {
      refusal = await this.writes.run(intentWrite(this.db, intent));
    } catch (error) {
      if (!isDuplicateKeyError(error)) {
        // The intent's own error is the one the sale fails with; holds a failed release leaves behind
        // expire with their lead (deleteStaleHolds) and never block a sale that is not this one.
        await this.release(post).catch(() => undefined);
        throw error;
      }
      await this.release(post);
      return { skip: 'posted' };
    }
    if (refusal) {
      await this.release(post);
      return { stop: refusal };
    }
    crashPoint('after-intent');
    return { post };
  }

  /**
   * The buyer's acceptance, left to the sale's record to store with the sale in one transaction. Until
   * that commits, the post is pending: a crash before leaves the lead unconfirmed, as a crash before an
   * answer's own record would.
   */
  accepted(post: OpenPost, answer: UnstoredAcceptance['answer'], retryUntil: number): UnstoredAcceptance {
    crashPoint('after-answer');
    return { answer, storeAlone: () => this.store(post, answer, retryUntil) };
  }

  /**
   * Records an answer that makes no sale (a decline, or none in time), trying again while storage fails
   * until `retryUntil` (then throws: the intent stays pending, and recovery treats the post as one that
   * may have reached the buyer).
   */
  async answer(post: OpenPost, answer: PostAnswer, retryUntil: number): Promise<void> {
    crashPoint('after-answer');
    await this.store(post, answer, retryUntil);
  }

  /**
   * Stores an answer on its own. A decline gives back what the post held; an acceptance moves the held
   * spend to the sale's price (a sale's record does it too, from the hold, when it stores the acceptance).
   *
   * An answer that finds the post taken over (this process stood still past its claim, and recovery
   * made the lead unconfirmed or sold it elsewhere) changes nothing: whoever settled the post decided
   * what it holds. Only an acceptance still settles a post recovery left unknown, for the reconciler
   * to sell; any other answer would leave an unconfirmed lead with no post awaiting an answer.
   */
  private async store(post: OpenPost, answer: PostAnswer, retryUntil: number): Promise<void> {
    const settles = answer.state === 'accepted' ? 'unsettled' : 'pending';
    const declined = answer.state === 'rejected' || answer.state === 'failed';
    const recorded = await this.retrying(
      () =>
        this.writes.run(
          plannedWrite([answerUpdate(this.db, post.id, answer, Date.now(), settles)], async ([update], trx) => {
            const stored = (update.numAffectedRows ?? 0n) > 0n;
            if (stored && declined && post.lead.live)
              await releaseHolds(trx, post.lead.leadId, post.offer.buyer, post.lead.person);
            return stored;
          }),
          // What comes of an answer that makes no sale is the sale's next write, which waits for the disk:
          // the next post's intent or the lead's outcome. A crash before it leaves the post without an
          // answer on disk, and the lead held, which the protocol settles as any post never answered.
          { waitForDisk: answer.state === 'accepted' },
        ),
      retryUntil,
    );
    if (!recorded || !post.lead.live) return;
    if (answer.state === 'accepted' && answer.chargeCents !== undefined) {
      await adjustSpend(
        this.db,
        post.lead.leadId,
        post.offer.buyer.id,
        post.offer.periods,
        answer.chargeCents - post.heldSpend,
      );
    }
  }

  /**
   * Holds the buyer's cap place and the person. Their commits do not wait for the disk: nothing leaves
   * the process on the strength of a hold, and the intent's commit, which waits, comes after them in the
   * log and takes them there (a crash before loses them with it).
   */
  private async hold(lead: PostingLead, offer: PostOffer, heldSpend: number): Promise<SkipReason | undefined> {
    const { buyer } = offer;
    if (
      heldSpend < 0 ||
      !(await reserveCapacity(this.db, lead.leadId, buyer.id, offer.periods, heldSpend, this.durability))
    )
      return 'capped';
    // Through the group commit: a lock conflict with another lead's hold (two leads of one person at
    // once, on MySQL) runs it again alone instead of failing the sale.
    const held = await this.writes.run((trx) => holdPerson(trx, buyer, lead.person, lead.leadId, Date.now()), {
      waitForDisk: false,
    });
    if (held) return undefined;
    await releaseCapacity(this.db, lead.leadId, buyer.id);
    return 'duplicate';
  }

  private async release(post: OpenPost): Promise<void> {
    if (post.lead.live) await releaseHolds(this.db, post.lead.leadId, post.offer.buyer, post.lead.person);
  }

  /**
   * The spend a post holds against the buyer's caps: its price when known; for a buyer that names its
   * price in its answer, all that is left of its spend cap (negative when nothing is). Its answer's
   * price then replaces what was held; a price above what was left overshoots the cap by that one lead.
   */
  private async spendToHold(offer: PostOffer): Promise<number> {
    if (offer.chargeCents !== undefined) return offer.chargeCents;
    const headroom = await spendHeadroom(this.db, offer.buyer.id, offer.periods);
    return headroom === undefined ? 0 : headroom > 0 ? headroom : -1;
  }

  private async retrying<T>(write: () => Promise<T>, retryUntil: number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        const pause = RECORD_RETRY_MS[Math.min(attempt, RECORD_RETRY_MS.length - 1)]!;
        if (Date.now() + pause > retryUntil) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}

/**
 * Gives back what a post of the lead held of the buyer: its cap place and the person. The one way holds
 * are released, and only for a post the buyer did not take (declined, or settled as not sold).
 */
export async function releaseHolds(db: Db, leadId: string, buyer: Buyer, person: PersonHashes): Promise<void> {
  await releasePerson(db, buyer, person);
  await releaseCapacity(db, leadId, buyer.id);
}
