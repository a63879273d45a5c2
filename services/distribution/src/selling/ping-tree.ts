import type { Tracer } from '@opentelemetry/api';
import type { BuyerService } from '../buyers/buyer.service.js';
import { callTimeoutMs } from '../buyers/definition/buyer-definition.js';
import { callBuyer } from '../buyers/integration/buyer-call.js';
import { DEFAULT_TREE, EffectiveTree, type TreeDefaults } from '../buyers/tree/tree-settings.js';
import type { Db } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import { insertBuyerAttempts } from '../leads/lead.repository.js';
import { AttemptLog } from './attempt-log.js';
import { CallTiming } from './call-timing.js';
import type { Candidate } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import { eligibleCandidates } from './eligibility.js';
import {
  AWAITING_CONFIRMATION,
  DEADLINE_REACHED,
  type LeadSeller,
  NO_BUYER_ACCEPTED,
  NO_ELIGIBLE_BUYER,
  type SaleDecision,
  type SaleRequest,
} from './lead-seller.js';
import { PingRound } from './ping-round.js';
import { PingLatencies } from './ping-window.js';
import type { PostFiguresStore } from './post-figures-store.js';
import { PostJournal } from './post-journal.js';
import { planPosts, prospectOf } from './post-order.js';
import { PostStep } from './post-step.js';
import { byPriceGroup, byTier, rankOffers } from './selection.js';
import { BuyerCaller } from './traced-call.js';

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
  private readonly random: () => number;
  private readonly timing: CallTiming;
  private readonly pingRound: PingRound;
  private readonly postStep: PostStep;

  constructor(private readonly deps: PingTreeDependencies) {
    this.random = deps.random ?? Math.random;
    this.timing = new CallTiming(deps.figures);
    const caller = new BuyerCaller({ tracer: deps.tracer, breakers: deps.breakers, call: deps.call ?? callBuyer });
    this.pingRound = new PingRound({
      caller,
      breakers: deps.breakers,
      timing: this.timing,
      pingLatencies: deps.pingLatencies ?? new PingLatencies(),
    });
    this.postStep = new PostStep({ journal: new PostJournal(deps.db, deps.writes), caller, breakers: deps.breakers });
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
    const candidates = await eligibleCandidates(this.deps, request, log);
    if (candidates.length === 0) return decision(NO_ELIGIBLE_BUYER);
    const tree = new EffectiveTree(await this.deps.buyers.treeSettings(), this.deps.treeDefaults ?? DEFAULT_TREE);

    let outOfTime = false;
    for await (const offers of this.offerGroups(candidates, tree, request, log, waited)) {
      const queue = rankOffers(offers, this.random);
      while (queue.length > 0) {
        const [candidate] = queue.splice(this.nextPost(queue, request), 1) as [Candidate];
        if (!this.timing.fitsDeadline(candidate, 'post', request)) {
          log.skip(candidate.buyer.id, 'deadline');
          outOfTime = true;
          continue;
        }
        offered.set(candidate.buyer.id, candidate.chargeCents);
        const posted = await this.postStep.post(candidate, request, log, waited);
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
      for (const tier of byTier(candidates)) yield await this.pingRound.offers(tier, tree, request, log, waited);
      return;
    }
    const offers = await this.pingRound.offers(candidates, tree, request, log, waited);
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
        this.timing.figuresOf(figures, candidate, request),
        {
          valueCents: candidate.chargeCents ?? 0,
          timeoutMs: callTimeoutMs(integration, 'post'),
          minimumTimeMs: this.timing.minimumTimeMs(candidate, 'post', request),
          timeoutEndsSale: integration.onTimeout !== 'decline',
        },
        tree,
      );
    });
    return planPosts(prospects, request.deadline - Date.now())[0]!;
  }
}
