import type { BuyerService } from '../buyers/buyer.service.js';
import type { Db } from '../db/database.js';
import { enqueuePublisherEvent } from '../postbacks/publisher-outbox.js';
import { releaseLeadCapacity } from './cap.repository.js';
import type { LeadPost } from './lead-post.js';
import { listLeadPosts, recordAnswer } from './lead-post.repository.js';
import { AWAITING_CONFIRMATION, type SaleWinner } from './lead-seller.js';
import { type RecordedLead, recordSale, recordUnsold } from './sale-record.js';

export type Recovered =
  /** A post the buyer accepted, now recorded as the lead's sale. */
  | { kind: 'sold'; winner: SaleWinner }
  /** A post that may have reached its buyer: the lead waits for it. */
  | { kind: 'unconfirmed'; postId: string; buyerId: string }
  /** Nothing reached a buyer that may have it: the lead can be sold, never again to these buyers. */
  | { kind: 'resell'; postedBuyers: Set<string> };

export function winnerOfPost(post: LeadPost): SaleWinner {
  return {
    postId: post.id,
    buyerId: post.buyerId,
    chargeCents: post.chargeCents ?? 0,
    payoutCents: post.payoutCents ?? 0,
    redirectUrl: post.redirectUrl ?? '',
    // Whoever opened the post is gone: only the store knows whether it held caps.
    mayHoldCapacity: true,
  };
}

/**
 * Picks up a lead whose seller stopped (a crash, an outage) from what its post intents say, never
 * repeating a post that may have reached a buyer: an accepted post becomes the sale; a post without an
 * answer makes the lead unconfirmed, unless its buyer's contract makes a timeout a decline; otherwise
 * what the lead still holds of buyers' caps is given back and it may be sold again.
 * `lead.claimToken` must be the claim the caller holds now.
 */
export async function recoverSale(
  db: Db,
  buyers: BuyerService,
  lead: RecordedLead & { claimToken: string },
  now: number,
): Promise<Recovered> {
  const posts = await listLeadPosts(db, lead.id);
  const accepted = posts.find((post) => post.state === 'accepted');
  if (accepted) {
    const winner = winnerOfPost(accepted);
    await db.transaction().execute((trx) => recordSale(trx, lead, winner, [], null, now));
    return { kind: 'sold', winner };
  }
  let open: LeadPost | undefined;
  for (const post of posts.filter((post) => post.state === 'pending' || post.state === 'unknown')) {
    // A buyer that cannot be read (deleted, storage down) is not taken to decline: the post stays open and
    // the lead held, the safe reading of an answer that may have been a yes.
    const declinesOnTimeout =
      (await buyers.get(post.buyerId).catch(() => undefined))?.definition.integration.onTimeout === 'decline';
    if (declinesOnTimeout) {
      await recordAnswer(db, post.id, { state: 'failed', resolvedBy: 'timeout_policy' }, now);
      continue;
    }
    if (post.state === 'pending') await recordAnswer(db, post.id, { state: 'unknown' }, now);
    open ??= post;
  }
  if (open) {
    await db.transaction().execute((trx) =>
      recordUnsold(trx, lead.id, lead.claimToken, [], {
        status: 'unconfirmed',
        completedAt: now,
        reason: AWAITING_CONFIRMATION,
      }),
    );
    return { kind: 'unconfirmed', postId: open.id, buyerId: open.buyerId };
  }
  await releaseLeadCapacity(db, lead.id);
  return { kind: 'resell', postedBuyers: new Set(posts.map((post) => post.buyerId)) };
}

/** Why a lead no retry came back for was closed; what its status lookup and a late retry answer. */
export const NOT_RETRIED = 'The first request ended before the lead was sold, and it was not retried in time';

/**
 * Closes as rejected a lead that recovery left free to sell (`resell`) but that its publisher never sent
 * again within the retry window: nothing was at a buyer, so nothing more is owed to anyone, and the
 * publisher is told by its postback. `lead.claimToken` must be the claim the caller holds now.
 */
export async function closeUnretried(
  db: Db,
  lead: RecordedLead & { clickid: string; claimToken: string },
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await recordUnsold(trx, lead.id, lead.claimToken, [], {
      status: 'rejected',
      completedAt: now,
      reason: NOT_RETRIED,
    });
    await enqueuePublisherEvent(
      trx,
      {
        publisherId: lead.publisherId,
        leadId: lead.id,
        clickid: lead.clickid,
        status: 'rejected',
        payoutCents: 0,
        reason: NOT_RETRIED,
        test: lead.test,
      },
      now,
    );
  });
}
