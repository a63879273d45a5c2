import { chargeForPost } from '../buyers/rules/price-change.js';
import type { AttemptLog, CallRecord } from './attempt-log.js';
import { type Candidate, payoutOf } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { LateAnswers, LingeringPost } from './late-answers.js';
import type { LatePostTrail } from './late-post-trail.js';
import type { Verdict } from './lead-resolution.js';
import type { SaleRequest, SaleWinner, UnstoredAcceptance } from './lead-seller.js';
import { type PostVerdict, postVerdict } from './post-answer.js';
import type { OpenPost, PostJournal } from './post-journal.js';
import type { BuyerCaller, TracedCallResult } from './traced-call.js';

/** How one post ended for the sale: sold, a no (the next offer is tried), unconfirmed, or the sale stops. */
export type PostResult =
  | { kind: 'sold'; winner: SaleWinner }
  | { kind: 'declined' }
  | { kind: 'unconfirmed'; postId: string; buyerId: string; lingering?: LingeringPost }
  | { kind: 'interrupted' };

export interface PostStepDependencies {
  journal: PostJournal;
  caller: BuyerCaller;
  breakers: CircuitBreakers;
  /** Where a post cut short by the deadline stays open for its late answer; without it, the post is cut. */
  lateAnswers?: LateAnswers;
  /** Where a late answer is written; without it, the post's line stays `unknown`. */
  lateAnswerTrail?: LatePostTrail;
}

/** What a post's result says: a sale at a price, or the verdict of an answer that is none. */
interface Judged {
  sold: boolean;
  chargeCents: number | undefined;
  payoutCents: number | undefined;
  verdict: PostVerdict;
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
    const { result, lingering } = await this.call(candidate, request, post);
    waited.ms += performance.now() - started;

    const judged = judge(candidate, request, result);
    const { sold, chargeCents, payoutCents, verdict } = judged;
    log.call(buyer.id, callRecordOf(judged, result));
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
    if (verdict.state === 'unknown') return { kind: 'unconfirmed', postId: post.id, buyerId: buyer.id, lingering };
    return { kind: 'declined' };
  }

  /**
   * The post's call, its result by the sale's deadline. A call still open then is cut, unless its late
   * answer can settle the lead (the buyer's timeout is not a decline) and there is room to keep it open:
   * then the sale goes on as for a timeout, and the call runs to the buyer's own timeout.
   */
  private async call(
    candidate: Candidate,
    request: SaleRequest,
    post: OpenPost,
  ): Promise<{ result: TracedCallResult; lingering?: LingeringPost }> {
    const { integration } = candidate.buyer.definition;
    const { lateAnswers } = this.deps;
    if (!lateAnswers || integration.onTimeout === 'decline')
      return {
        result: await this.deps.caller.call('post', candidate, integration.post, request, { attemptId: post.id }),
      };
    const controller = new AbortController();
    const startedAt = Date.now();
    const call = this.deps.caller.call('post', candidate, integration.post, request, {
      attemptId: post.id,
      outlivesDeadline: controller.signal,
    });
    const result = await answerBy(call, request.deadline);
    if (result) return { result };
    const lingering = lateAnswers.keep({
      leadId: request.leadId,
      postId: post.id,
      buyerId: candidate.buyer.id,
      test: request.lead.test,
      call,
      controller,
      verdictOf: (late) => lateVerdict(judge(candidate, request, late), late),
      record: (late) => this.recordLateAnswer(candidate, request, late),
    });
    if (!lingering) {
      controller.abort();
      return { result: await call };
    }
    return { result: cutAtDeadline(startedAt), lingering };
  }

  /** A late answer goes where one in time would: the lead's audit trail and the buyer's figures. */
  private recordLateAnswer(candidate: Candidate, request: SaleRequest, result: TracedCallResult): Promise<void> {
    const record = callRecordOf(judge(candidate, request, result), result);
    return (
      this.deps.lateAnswerTrail?.record(
        { leadId: request.leadId, state: request.lead.fields.state, live: !request.lead.test },
        { buyerId: candidate.buyer.id, offeredCents: candidate.chargeCents },
        record.reason === undefined && result.outcome !== 'timeout'
          ? { ...record, reason: "answered after the sale's deadline" }
          : record,
      ) ?? Promise.resolve()
    );
  }
}

/** The audit trail's line for a post's result. */
function callRecordOf(judged: Judged, result: TracedCallResult): CallRecord {
  const { sold, chargeCents, verdict } = judged;
  return {
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
  };
}

function judge(candidate: Candidate, request: SaleRequest, result: TracedCallResult): Judged {
  const { buyer } = candidate;
  const chargeCents = chargeForPost(buyer.definition, candidate.facts, candidate.chargeCents, result);
  const payoutCents = chargeCents === undefined ? undefined : payoutOf(buyer, request, chargeCents);
  const sold = result.outcome === 'accepted' && payoutCents !== undefined && payoutCents >= request.lead.priceCents;
  return { sold, chargeCents, payoutCents, verdict: postVerdict(result, sold, buyer.definition.integration.onTimeout) };
}

/** A late answer read as a post's answer is in time: a sale, a decline, or nothing that settles the lead. */
function lateVerdict(judged: Judged, result: TracedCallResult): Verdict | undefined {
  if (judged.sold) {
    const answer = {
      chargeCents: judged.chargeCents!,
      payoutCents: judged.payoutCents!,
      redirectUrl: result.reply.redirectUrl ?? '',
      reference: result.reply.reference,
    };
    return { sold: true, answer };
  }
  if (judged.verdict.state === 'rejected' || judged.verdict.state === 'failed')
    return { sold: false, reference: result.reply.reference };
  return undefined;
}

/** The call's result if it comes by `deadline` (epoch ms), else undefined; the call itself goes on. */
async function answerBy(call: Promise<TracedCallResult>, deadline: number): Promise<TracedCallResult | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()))),
  );
  try {
    return await Promise.race([call, cut]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the sale sees of a call still open at its deadline: a timeout. */
function cutAtDeadline(startedAt: number): TracedCallResult {
  return {
    reply: { outcome: 'error', error: 'timeout' },
    httpStatus: null,
    latencyMs: Date.now() - startedAt,
    outcome: 'timeout',
    startedAt,
  };
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
