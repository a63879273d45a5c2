import { chargeForPost } from '../buyers/rules/price-change.js';
import type { AttemptLog } from './attempt-log.js';
import { type Candidate, payoutOf } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { SaleRequest, SaleWinner, UnstoredAcceptance } from './lead-seller.js';
import { postVerdict } from './post-answer.js';
import type { OpenPost, PostJournal } from './post-journal.js';
import type { BuyerCaller } from './traced-call.js';

/** How one post ended for the sale: sold, a no (the next offer is tried), unconfirmed, or the sale stops. */
export type PostResult =
  | { kind: 'sold'; winner: SaleWinner }
  | { kind: 'declined' }
  | { kind: 'unconfirmed'; postId: string; buyerId: string }
  | { kind: 'interrupted' };

export interface PostStepDependencies {
  journal: PostJournal;
  caller: BuyerCaller;
  breakers: CircuitBreakers;
}

/**
 * Posts a lead to one buyer under the sale protocol: its caps and the person held and the intent
 * committed first (PostJournal), any other answer recorded as soon as it arrives, an acceptance left to
 * the sale's record.
 */
export class PostStep {
  constructor(private readonly deps: PostStepDependencies) {}

  async post(candidate: Candidate, request: SaleRequest, log: AttemptLog, waited: { ms: number }): Promise<PostResult> {
    const { buyer } = candidate;
    const { journal } = this.deps;
    const live = !request.lead.test;
    const opened = await journal.open(
      { leadId: request.leadId, claimToken: request.claimToken, person: request.person, live },
      { buyer, periods: candidate.periods, chargeCents: candidate.chargeCents, payoutCents: candidate.payoutCents },
      () => !live || this.deps.breakers.allow(buyer.id),
    );
    if ('skip' in opened) {
      log.skip(buyer.id, opened.skip);
      return { kind: 'declined' };
    }
    if ('stop' in opened) return { kind: 'interrupted' };
    const { post } = opened;

    const started = performance.now();
    const result = await this.deps.caller.call('post', candidate, buyer.definition.integration.post, request, post.id);
    waited.ms += performance.now() - started;

    const chargeCents = chargeForPost(buyer.definition, candidate.facts, candidate.chargeCents, result);
    const payoutCents = chargeCents === undefined ? undefined : payoutOf(buyer, request, chargeCents);
    const sold = result.outcome === 'accepted' && payoutCents !== undefined && payoutCents >= request.lead.priceCents;
    const verdict = postVerdict(result, sold, buyer.definition.integration.onTimeout);
    log.call(buyer.id, {
      kind: 'post',
      startedAt: result.startedAt,
      durationMs: result.latencyMs,
      // A post whose answer never came may have reached the buyer: its outcome is unknown.
      outcome:
        verdict.state === 'unknown' ? 'unknown' : sold || result.outcome !== 'accepted' ? result.outcome : 'rejected',
      httpStatus: result.httpStatus,
      priceCents: sold ? chargeCents : undefined,
      reference: result.reply.reference,
      reason: verdict.byTimeoutPolicy
        ? "no answer in time: a decline under the buyer's timeout policy"
        : result.outcome === 'accepted' && !sold
          ? 'price in the answer is below the floor or missing'
          : (result.reply.reason ?? result.reply.error),
    });
    if (sold) {
      const accepted = {
        state: 'accepted',
        chargeCents: chargeCents!,
        payoutCents: payoutCents!,
        redirectUrl: result.reply.redirectUrl ?? '',
        reference: result.reply.reference,
      } as const;
      return { kind: 'sold', winner: winnerOf(post, journal.accepted(post, accepted, request.recordBy)) };
    }
    await journal.answer(
      post,
      {
        state: verdict.state,
        reference: result.reply.reference,
        resolvedBy: verdict.byTimeoutPolicy ? 'timeout_policy' : undefined,
      },
      request.recordBy,
    );
    if (verdict.state === 'unknown') return { kind: 'unconfirmed', postId: post.id, buyerId: buyer.id };
    return { kind: 'declined' };
  }
}

function winnerOf(post: OpenPost, acceptance: UnstoredAcceptance): SaleWinner {
  const { chargeCents, payoutCents, redirectUrl } = acceptance.answer;
  return {
    postId: post.id,
    buyerId: post.offer.buyer.id,
    chargeCents,
    payoutCents,
    redirectUrl,
    mayHoldCapacity: post.lead.live && post.offer.periods.length > 0,
    acceptance,
  };
}
