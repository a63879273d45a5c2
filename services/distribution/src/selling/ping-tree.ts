import type { Tracer } from '@opentelemetry/api';
import type { BuyerService } from '../buyers/buyer.service.js';
import { callBuyer } from '../buyers/integration/buyer-call.js';
import { DEFAULT_TREE, EffectiveTree, type TreeDefaults } from '../buyers/tree/tree-settings.js';
import type { Db } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import type { AttemptRecord } from '../leads/attempt-record.js';
import { insertBuyerAttempts } from '../leads/lead.repository.js';
import { AttemptLog } from './attempt-log.js';
import { BidLevels } from './bid-levels.js';
import { CallTiming } from './call-timing.js';
import type { Candidate } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import { eligibleCandidates } from './eligibility.js';
import type { LateAnswers } from './late-answers.js';
import { LateBids } from './late-bids.js';
import { LatePostTrail } from './late-post-trail.js';
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
import { planPosts } from './post-order.js';
import { PostStep } from './post-step.js';
import { byPriceGroup, byTier, rankOffers } from './selection.js';
import { BuyerCaller } from './traced-call.js';

/** Offers posted together, and the tiers whose bids answered after their window may join them. */
interface OfferGroup {
  offers: Candidate[];
  tiers: ReadonlySet<number>;
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
   * Buyers' learned post figures, learned from every live sale: they say when a post is still worth
   * sending (call-timing.ts) and, with `orderByValue`, which post to send next.
   */
  figures?: PostFiguresStore;
  /**
   * Posts ordered by expected revenue when the time left cannot carry every post in price order, and a
   * learned ping window that decides by value (LEADFLOW_POST_ORDER=expected_value); else price order, and
   * the learned window's share of the budget. Needs `figures`.
   */
  orderByValue?: boolean;
  /** Where posts cut short by the deadline stay open for their late answers; without it, they are cut. */
  lateAnswers?: LateAnswers;
  /**
   * Told of an attempt that came after the sale's record (a late bid's ping) and could not be added to the
   * audit trail: the sale stands, only that line of its history is missing.
   */
  onAuditTrailLost?: (attempt: AttemptRecord, error: unknown) => void;
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
      bidLevels: new BidLevels(),
      windowByValue: deps.orderByValue ?? false,
    });
    this.postStep = new PostStep({
      journal: new PostJournal(deps.db, deps.writes),
      caller,
      breakers: deps.breakers,
      lateAnswers: deps.lateAnswers,
      lateAnswerTrail: new LatePostTrail(deps.db, deps.figures),
    });
  }

  async sell(request: SaleRequest): Promise<SaleDecision> {
    const log = new AttemptLog(request.leadId);
    const late = new LateBids();
    const waited = { ms: 0 };
    /** What each buyer posted to was offered the lead at, for its learned figures. */
    const offered = new Map<string, number | undefined>();
    const decision = (reason: string, outcome: Partial<SaleDecision> = {}): SaleDecision => {
      // The attempts go to the sale's record; a bid that comes later still goes to the audit trail.
      late.end();
      log.close(
        (attempt) =>
          void insertBuyerAttempts(this.deps.db, [attempt]).catch((error: unknown) =>
            this.deps.onAuditTrailLost?.(attempt, error),
          ),
      );
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
    for await (const group of this.offerGroups(candidates, tree, request, log, waited, late)) {
      let queue = rankOffers(group.offers, this.random);
      for (;;) {
        // Bids answered since the window closed join the offers not yet posted, ranked with them.
        const joined = late.take(group.tiers);
        if (joined.length > 0) queue = rankOffers([...queue, ...joined], this.random);
        if (queue.length === 0) break;
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
      late.closeTiers(group.tiers);
    }
    return decision(outOfTime ? DEADLINE_REACHED : NO_BUYER_ACCEPTED, { outOfTime });
  }

  /**
   * The offers in the groups they are posted by, each with the tiers whose late bids join it: in strict
   * tiers, each tier pinged only when the one before sold nothing; otherwise every tier pinged at once,
   * then one group per tier (price groups, best offer first; a tier with no offer in hand last, for its
   * late bids) or one group of all (auction).
   */
  private async *offerGroups(
    candidates: Candidate[],
    tree: EffectiveTree,
    request: SaleRequest,
    log: AttemptLog,
    waited: { ms: number },
    late: LateBids,
  ): AsyncGenerator<OfferGroup> {
    const tiersOf = (group: readonly Candidate[]) => new Set(group.map(({ buyer }) => buyer.definition.tier));
    if (tree.routing === 'strict_tiers') {
      for (const tier of byTier(candidates)) {
        yield { offers: await this.pingRound.offers(tier, tree, request, log, waited, late), tiers: tiersOf(tier) };
      }
      return;
    }
    const offers = await this.pingRound.offers(candidates, tree, request, log, waited, late);
    if (tree.routing === 'auction') {
      yield { offers, tiers: tiersOf(candidates) };
      return;
    }
    const groups = byPriceGroup(offers);
    const inHand = new Set(groups.map((group) => group[0]!.buyer.definition.tier));
    for (const group of groups) yield { offers: group, tiers: tiersOf(group) };
    for (const tier of tiersOf(candidates)) if (!inHand.has(tier)) yield { offers: [], tiers: new Set([tier]) };
  }

  /**
   * Which of the ranked offers to post next: the first, unless the buyers' learned figures say that
   * another order brings more in the time left (planPosts). Planned again after every post, with the
   * time that is really left.
   */
  private nextPost(ranked: readonly Candidate[], request: SaleRequest): number {
    const figures = this.deps.figures;
    if (!figures || !this.deps.orderByValue || ranked.length < 2) return 0;
    const prospects = ranked.map((candidate) => this.timing.postProspect(figures, candidate, request));
    return planPosts(prospects, request.deadline - Date.now())[0]!;
  }
}
