import { SpanKind, type Tracer } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS } from '@opentelemetry/semantic-conventions';
import type { Db } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import { insertBuyerAttempts } from '../leads/lead.repository.js';
import { AttemptLog } from './attempt-log.js';
import type { Buyer } from './buyer.js';
import type { BuyerService } from './buyer.service.js';
import { derivedValues, hostOfUrl } from './call-inputs.js';
import { readCounters } from './cap.repository.js';
import { type CapPeriod, capPeriods } from './cap-periods.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import { callTimeoutMs, type HttpExchange, type Integration } from './definition/buyer-definition.js';
import { buyersWithDuplicate } from './duplicates.js';
import { type BuyerCallResult, callBuyer, type LeadForBuyer } from './integration/buyer-call.js';
import {
  AWAITING_CONFIRMATION,
  DEADLINE_REACHED,
  type LeadSeller,
  NO_BUYER_ACCEPTED,
  NO_ELIGIBLE_BUYER,
  type SaleDecision,
  type SaleRequest,
  type SaleWinner,
  type UnstoredAcceptance,
} from './lead-seller.js';
import { PingLatencies, pingWindowMs } from './ping-window.js';
import { postVerdict } from './post-answer.js';
import { type PostFigures, priceBandOf } from './post-figures.js';
import type { PostFiguresStore } from './post-figures-store.js';
import { type OpenPost, PostJournal } from './post-journal.js';
import { planPosts, prospectOf } from './post-order.js';
import { factsByZone, type LeadFacts } from './rules/lead-facts.js';
import { payoutFor } from './rules/payout.js';
import { chargeForPost } from './rules/price-change.js';
import { priceFor } from './rules/pricing.js';
import { byPriceGroup, byTier, type CapUsage, rankOffers, skipReason } from './selection.js';
import { DEFAULT_TREE, EffectiveTree, type TreeDefaults } from './tree/tree-settings.js';

/** A buyer still in the running for this lead. */
interface Candidate {
  buyer: Buyer;
  facts: LeadFacts;
  periods: CapPeriod[];
  /** Known once the price is: from the pricing rules, or from the ping's bid. */
  chargeCents: number | undefined;
  payoutCents: number | undefined;
  /** The buyer's reference for its bid, sent back with the post. */
  pingReference?: string;
}

export interface PingTreeDependencies {
  db: Db;
  /** Where the post intents and answers are committed, together with other leads' writes. */
  writes: GroupCommit;
  buyers: BuyerService;
  breakers: CircuitBreakers;
  tracer: Tracer;
  /** The call to a buyer's API; replaced in tests of the engine alone. */
  call?: typeof callBuyer;
  /** For the weighted rotation among equal offers. */
  random?: () => number;
  /**
   * The routing mode and ping window where the buyers document's `tree` sets none (the environment's);
   * by default strict tiers, windows learned from the bidders' answer times (ping-window.ts).
   */
  treeDefaults?: TreeDefaults;
  /** The bidders' recent ping answer times; this seller's own when not given. */
  pingLatencies?: PingLatencies;
  /**
   * Buyers' learned post figures: with them, posts are ordered by expected revenue when the time left
   * cannot carry every post in price order; without them, always in price order.
   */
  figures?: PostFiguresStore;
}

/**
 * A call goes out when this share of its timeout is left (the call is then cut to the deadline); a post
 * to a buyer with learned figures, when its median answer time is.
 */
const USEFUL_SHARE_OF_TIMEOUT = 0.5;

/** How one post ended for the sale: sold, a no (the next offer is tried), unconfirmed, or the sale stops. */
type PostResult =
  | { kind: 'sold'; winner: SaleWinner }
  | { kind: 'declined' }
  | { kind: 'unconfirmed'; postId: string; buyerId: string }
  | { kind: 'interrupted' };

/**
 * The ping tree: tiers in order (or all at once, by the routing mode); inside a
 * tier every eligible ping-post buyer is pinged at once, then the lead is posted
 * to the best offer first (bids and fixed prices ranked together; by expected
 * revenue when the time left cannot carry every post), then the next, until one
 * accepts, a post's answer never comes (the lead is then held for that buyer), or
 * the deadline leaves no room. Decisions come from selection.ts and post-order.ts;
 * every post goes through the PostJournal, durable before it reaches the buyer.
 * Every buyer considered and not tried is recorded with its reason.
 */
export class PingTreeSeller implements LeadSeller {
  private readonly call: typeof callBuyer;
  private readonly random: () => number;
  private readonly journal: PostJournal;
  private readonly pingLatencies: PingLatencies;

  constructor(private readonly deps: PingTreeDependencies) {
    this.call = deps.call ?? callBuyer;
    this.pingLatencies = deps.pingLatencies ?? new PingLatencies();
    this.random = deps.random ?? Math.random;
    this.journal = new PostJournal(deps.db, deps.writes);
  }

  async sell(request: SaleRequest): Promise<SaleDecision> {
    const log = new AttemptLog(request.leadId);
    const waited = { ms: 0 };
    /** What each buyer posted to was offered the lead at, for its learned figures. */
    const offered = new Map<string, number | undefined>();
    const decision = (reason: string, outcome: Partial<SaleDecision> = {}): SaleDecision => {
      // The attempts go to the sale's record; a bid that comes later still goes to the audit trail.
      log.close((attempt) => void insertBuyerAttempts(this.deps.db, [attempt]).catch(() => undefined));
      if (!request.lead.test)
        this.deps.figures?.record(log.attempts, request.lead.fields.state, (buyerId) => offered.get(buyerId));
      return {
        winner: undefined,
        unconfirmed: undefined,
        interrupted: false,
        outOfTime: false,
        attempts: log.attempts,
        buyerWaitMs: waited.ms,
        reason,
        ...outcome,
      };
    };
    const candidates = await this.eligible(request, log);
    if (candidates.length === 0) return decision(NO_ELIGIBLE_BUYER);
    const tree = new EffectiveTree(await this.deps.buyers.treeSettings(), this.deps.treeDefaults ?? DEFAULT_TREE);

    let outOfTime = false;
    for await (const offers of this.offerGroups(candidates, tree, request, log, waited)) {
      const queue = rankOffers(offers, this.random);
      while (queue.length > 0) {
        const [candidate] = queue.splice(this.nextPost(queue, request), 1) as [Candidate];
        if (!this.fitsDeadline(candidate, 'post', request)) {
          log.skip(candidate.buyer.id, 'deadline');
          outOfTime = true;
          continue;
        }
        offered.set(candidate.buyer.id, candidate.chargeCents);
        const posted = await this.post(candidate, request, log, waited);
        if (posted.kind === 'sold') return decision('', { winner: posted.winner });
        if (posted.kind === 'unconfirmed') return decision(AWAITING_CONFIRMATION, { unconfirmed: posted });
        if (posted.kind === 'interrupted') return decision('', { interrupted: true });
      }
    }
    return decision(outOfTime ? DEADLINE_REACHED : NO_BUYER_ACCEPTED, { outOfTime });
  }

  /**
   * The offers in the groups they are posted by: in strict tiers, each tier pinged only when the one
   * before sold nothing; otherwise every tier pinged at once, then one group per tier (price groups,
   * best offer first) or one group of all (auction).
   */
  private async *offerGroups(
    candidates: Candidate[],
    tree: EffectiveTree,
    request: SaleRequest,
    log: AttemptLog,
    waited: { ms: number },
  ): AsyncGenerator<Candidate[]> {
    if (tree.routing === 'strict_tiers') {
      for (const tier of byTier(candidates)) yield await this.pingAll(tier, tree, request, log, waited);
      return;
    }
    const offers = await this.pingAll(candidates, tree, request, log, waited);
    if (tree.routing === 'auction') yield offers;
    else yield* byPriceGroup(offers);
  }

  /**
   * Which of the ranked offers to post next: the first, unless the buyers' learned figures say that
   * another order brings more in the time left (planPosts). Planned again after every post, with the
   * time that is really left.
   */
  private nextPost(ranked: readonly Candidate[], request: SaleRequest): number {
    const figures = this.deps.figures;
    if (!figures || ranked.length < 2) return 0;
    const tree = figures.treeFigures();
    const prospects = ranked.map((candidate) => {
      const { integration } = candidate.buyer.definition;
      return prospectOf(
        this.figuresOf(figures, candidate, request),
        {
          valueCents: candidate.chargeCents ?? 0,
          timeoutMs: callTimeoutMs(integration, 'post'),
          minimumTimeMs: this.minimumTimeMs(candidate, 'post', request),
          timeoutEndsSale: integration.onTimeout !== 'decline',
        },
        tree,
      );
    });
    return planPosts(prospects, request.deadline - Date.now())[0]!;
  }

  /** A buyer's learned figures for this lead: its state, and the price band of the offer. */
  private figuresOf(figures: PostFiguresStore, candidate: Candidate, request: SaleRequest): PostFigures {
    return figures.figures(candidate.buyer.id, request.lead.fields.state, priceBandOf(candidate.chargeCents));
  }

  /** The active buyers this lead may go to; every other one gets its reason in the log. */
  private async eligible(request: SaleRequest, log: AttemptLog): Promise<Candidate[]> {
    const { lead } = request;
    const now = new Date();
    const buyers = await this.deps.buyers.listActive();
    const duplicates = lead.test
      ? new Set<string>()
      : await buyersWithDuplicate(this.deps.db, request.leadId, request.person, buyers, now.getTime());
    const periodsOf = new Map(
      buyers.map((buyer) => [buyer.id, capPeriods(buyer.definition.caps, now, timezoneOf(buyer))]),
    );
    const counters: ReadonlyMap<string, CapUsage> = lead.test
      ? new Map()
      : await readCounters(
          this.deps.db,
          buyers.filter((buyer) => periodsOf.get(buyer.id)!.length > 0).map((buyer) => buyer.id),
          [...new Set([...periodsOf.values()].flat().map((period) => period.period))],
        );

    const factsIn = factsByZone({
      fields: lead.fields,
      ageYears: lead.ageYears,
      loanAmountCents: lead.loanAmountCents,
      incomeNetMonthlyCents: lead.incomeNetMonthlyCents,
      test: lead.test,
      publisherId: request.publisherId,
      now,
    });
    const candidates: Candidate[] = [];
    for (const buyer of buyers) {
      const { definition } = buyer;
      const facts = factsIn(timezoneOf(buyer));
      const periods = periodsOf.get(buyer.id)!;
      const chargeCents = priceFor(definition.pricing, facts, undefined);
      const payoutCents = chargeCents === undefined ? undefined : this.payout(buyer, request, chargeCents);
      const skip = skipReason(
        {
          buyer,
          facts,
          periods,
          chargeCents,
          payoutCents,
          usage: (period) => counters.get(`${buyer.id} ${period}`),
          posted: request.postedBuyers.has(buyer.id),
          duplicate: duplicates.has(buyer.id),
          circuitOpen: !lead.test && this.deps.breakers.state(buyer.id) === 'open',
        },
        lead.priceCents,
        now,
      );
      if (skip) log.skip(buyer.id, skip);
      else candidates.push({ buyer, facts, periods, chargeCents, payoutCents });
    }
    return candidates;
  }

  private payout(buyer: Buyer, request: SaleRequest, chargeCents: number): number | undefined {
    return payoutFor(buyer.definition.payout, request.publisherId, chargeCents, request.publisherPayoutShareBps);
  }

  /**
   * Pings every ping-post buyer of the tier at once and waits for their bids until the ping window
   * closes, never for the slowest bidder: a bid sets the buyer's price, no bid takes it out, and a bid
   * that comes after the window is recorded as late and not used. The tier's offers: its direct-post
   * buyers and the bidders in time whose payout meets the floor.
   */
  private async pingAll(
    tier: Candidate[],
    tree: EffectiveTree,
    request: SaleRequest,
    log: AttemptLog,
    waited: { ms: number },
  ): Promise<Candidate[]> {
    const pinged = tier.filter((candidate) => candidate.buyer.definition.integration.mode === 'ping_post');
    const directPosts = tier.filter((candidate) => candidate.buyer.definition.integration.mode === 'direct_post');
    if (pinged.length === 0) return tier;
    const started = performance.now();
    const bidders: Candidate[] = [];
    let windowOpen = true;
    const pings = Promise.all(
      pinged.map(async (candidate) => {
        const bidder = await this.ping(candidate, request, log, () => windowOpen);
        if (bidder && windowOpen) bidders.push(bidder);
      }),
    );
    let closeWindow: NodeJS.Timeout | undefined;
    const window = new Promise<void>(
      (resolve) => (closeWindow = setTimeout(resolve, this.pingWindowMs(pinged, tree, request))),
    );
    await Promise.race([pings, window]);
    clearTimeout(closeWindow);
    windowOpen = false;
    waited.ms += performance.now() - started;
    return [...directPosts, ...bidders];
  }

  /**
   * How long the pinged tiers wait for bids: each tier's configured window, else one its bidders' answer
   * times need; tiers pinged at once (price groups, auction) wait for the longest of theirs.
   */
  private pingWindowMs(pinged: Candidate[], tree: EffectiveTree, request: SaleRequest): number {
    const leftMs = request.deadline - Date.now();
    return Math.max(
      ...byTier(pinged).map((tier) =>
        pingWindowMs({
          configuredMs: tree.pingWindowMs(tier[0]!.buyer.definition.tier),
          leftMs,
          bidders: tier.map(({ buyer }) => ({
            timeoutMs: callTimeoutMs(buyer.definition.integration, 'ping'),
            p95Ms: this.pingLatencies.p95Ms(buyer.id),
          })),
        }),
      ),
    );
  }

  /** One bidder's ping; its bid as an offer, or undefined. `inWindow` says whether a bid still counts. */
  private async ping(
    candidate: Candidate,
    request: SaleRequest,
    log: AttemptLog,
    inWindow: () => boolean,
  ): Promise<Candidate | undefined> {
    const { buyer } = candidate;
    if (!this.fitsDeadline(candidate, 'ping', request)) return log.skip(buyer.id, 'deadline');
    if (!request.lead.test && !this.deps.breakers.allow(buyer.id)) return log.skip(buyer.id, 'circuit_open');
    const result = await this.callTraced('ping', candidate, buyer.definition.integration.ping!, request);
    this.recordHealth(candidate, 'ping', request, result);
    const answered = result.outcome === 'accepted' || result.outcome === 'rejected';
    if (answered && !request.lead.test) this.pingLatencies.record(buyer.id, result.latencyMs);
    const bidCents = result.outcome === 'accepted' ? result.reply.priceCents : undefined;
    const late = !inWindow();
    log.call(buyer.id, {
      kind: 'ping',
      startedAt: result.startedAt,
      durationMs: result.latencyMs,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      bidCents,
      reference: result.reply.reference,
      reason: late ? 'answered after the ping window: not used' : (result.reply.reason ?? result.reply.error),
    });
    if (late || result.outcome !== 'accepted') return undefined;
    // A fixed or rule price stands whether or not the ping named one; a bid buyer must name its bid.
    const chargeCents = priceFor(buyer.definition.pricing, candidate.facts, bidCents);
    if (chargeCents === undefined) return undefined;
    const payoutCents = this.payout(buyer, request, chargeCents);
    if (payoutCents === undefined || payoutCents < request.lead.priceCents) return log.skip(buyer.id, 'floor');
    return { ...candidate, chargeCents, payoutCents, pingReference: result.reply.reference };
  }

  private fitsDeadline(candidate: Candidate, kind: 'ping' | 'post', request: SaleRequest): boolean {
    return Date.now() + this.minimumTimeMs(candidate, kind, request) <= request.deadline;
  }

  /**
   * The least time that must be left for a call to go out: a useful part of its timeout, not all of it.
   * A post cut short by the deadline after it was sent has an unknown outcome, and the lead waits for
   * that buyer's answer (unconfirmed): it is never offered to another.
   */
  private minimumTimeMs(candidate: Candidate, kind: 'ping' | 'post', request: SaleRequest): number {
    const { buyer } = candidate;
    const timeoutMs = callTimeoutMs(buyer.definition.integration, kind);
    const figures = this.deps.figures;
    const medianMs = kind === 'post' && figures ? this.figuresOf(figures, candidate, request).p50Ms : undefined;
    return Math.min(timeoutMs, medianMs ?? timeoutMs * USEFUL_SHARE_OF_TIMEOUT);
  }

  /**
   * Posts to one buyer under the sale protocol: its caps and the person held and the intent committed
   * first (PostJournal), any other answer recorded as soon as it arrives, an acceptance left to the
   * sale's record.
   */
  private async post(
    candidate: Candidate,
    request: SaleRequest,
    log: AttemptLog,
    waited: { ms: number },
  ): Promise<PostResult> {
    const { buyer } = candidate;
    const live = !request.lead.test;
    const opened = await this.journal.open(
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
    const result = await this.callTraced('post', candidate, buyer.definition.integration.post, request, post.id);
    waited.ms += performance.now() - started;
    this.recordHealth(candidate, 'post', request, result);

    const chargeCents = chargeForPost(buyer.definition, candidate.facts, candidate.chargeCents, result);
    const payoutCents = chargeCents === undefined ? undefined : this.payout(buyer, request, chargeCents);
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
      return { kind: 'sold', winner: winnerOf(post, this.journal.accepted(post, accepted, request.recordBy)) };
    }
    await this.journal.answer(
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

  private async callTraced(
    kind: 'ping' | 'post',
    candidate: Candidate,
    exchange: HttpExchange,
    request: SaleRequest,
    attemptId?: string,
  ): Promise<BuyerCallResult & { startedAt: number }> {
    const { buyer } = candidate;
    const lead: LeadForBuyer = {
      leadId: request.leadId,
      fields: request.lead.fields,
      derived: derivedValues(candidate.facts, request.lead.priceCents),
      pingReference: kind === 'post' ? candidate.pingReference : undefined,
      attemptId,
    };
    const startedAt = Date.now();
    const host = destinationHost(exchange, buyer.definition.integration, request.lead.test);
    const result = await this.deps.tracer.startActiveSpan(
      `leadflow.buyer.${kind}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'leadflow.buyer_id': buyer.id,
          'leadflow.test': request.lead.test,
          ...(host ? { [ATTR_SERVER_ADDRESS]: host } : {}),
        },
      },
      async (span) => {
        const answer = await this.call(exchange, buyer.definition.integration, lead, {
          test: request.lead.test,
          kind,
          deadlineMs: request.deadline,
        });
        span.setAttribute('leadflow.buyer.outcome', answer.outcome);
        if (answer.httpStatus !== null) span.setAttribute('http.response.status_code', answer.httpStatus);
        span.end();
        return answer;
      },
    );
    return { ...result, startedAt };
  }

  /**
   * Live calls only: a test endpoint's troubles say nothing of the buyer's live API. Nor does a call
   * the sale's deadline cut short of the buyer's own timeout (or left no time to send): a slow buyer
   * posted late in a sale is not failing, and must not be paused for every other lead.
   */
  private recordHealth(
    candidate: Candidate,
    kind: 'ping' | 'post',
    request: SaleRequest,
    result: BuyerCallResult & { startedAt: number },
  ): void {
    if (request.lead.test) return;
    const cutByDeadline =
      request.deadline - result.startedAt < callTimeoutMs(candidate.buyer.definition.integration, kind);
    if (cutByDeadline && (result.outcome === 'timeout' || result.reply.error === 'deadline_passed')) return;
    if (result.outcome === 'error' || result.outcome === 'timeout')
      this.deps.breakers.recordFailure(candidate.buyer.id);
    else this.deps.breakers.recordSuccess(candidate.buyer.id);
  }
}

/**
 * The host a call goes to, for its span: never the whole URL, whose path or query may carry the
 * buyer's API key. Undefined when no call goes out (a test lead answered by configuration).
 */
function destinationHost(exchange: HttpExchange, integration: Integration, test: boolean): string | undefined {
  if (test && integration.testBehaviour !== 'test_url') return undefined;
  const url = test ? exchange.testUrl : exchange.url;
  return url === undefined ? undefined : hostOfUrl(url);
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

function timezoneOf(buyer: Buyer): string {
  return buyer.definition.schedule?.timezone ?? 'UTC';
}
