import type { Db } from '../db/database.js';
import { recordLatePostAnswer } from '../leads/lead.repository.js';
import { type CallRecord, storedCall } from './attempt-log.js';
import { priceBandOf, resultOf } from './post-figures.js';
import type { PostFiguresStore } from './post-figures-store.js';

/**
 * Writes a post's late answer where an answer in time goes: over the post's `unknown` line of the lead's
 * audit trail, and into the buyer's learned figures, so that a buyer whose posts the budget cuts short is
 * learned by how long it really takes, not by when it was cut.
 */
export class LatePostTrail {
  constructor(
    private readonly db: Db,
    private readonly figures: PostFiguresStore | undefined,
  ) {}

  async record(
    lead: { leadId: string; state: string; live: boolean },
    post: { buyerId: string; offeredCents: number | undefined },
    call: CallRecord,
  ): Promise<void> {
    const answer = storedCall(call);
    const written = await recordLatePostAnswer(this.db, lead.leadId, post.buyerId, answer);
    if (!written || !lead.live) return;
    this.figures?.observe(post.buyerId, {
      leadId: lead.leadId,
      at: call.startedAt,
      latencyMs: answer.durationMs,
      result: resultOf(call.outcome),
      state: lead.state,
      priceBand: priceBandOf(post.offeredCents),
    });
  }
}
