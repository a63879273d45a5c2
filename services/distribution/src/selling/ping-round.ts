import { callTimeoutMs } from '../buyers/definition/buyer-definition.js';
import { priceFor } from '../buyers/rules/pricing.js';
import type { EffectiveTree } from '../buyers/tree/tree-settings.js';
import type { AttemptLog } from './attempt-log.js';
import type { BidLevels } from './bid-levels.js';
import type { CallTiming } from './call-timing.js';
import { type Candidate, payoutOf } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { LateBids } from './late-bids.js';
import type { SaleRequest } from './lead-seller.js';
import { type PingLatencies, pingWindowMs } from './ping-window.js';
import { byTier } from './selection.js';
import type { BuyerCaller } from './traced-call.js';
import { extraWaitMs, type OutstandingBidder } from './window-value.js';

export interface PingRoundDependencies {
  caller: BuyerCaller;
  breakers: CircuitBreakers;
  timing: CallTiming;
  /** The bidders' recent ping answer times. */
  pingLatencies: PingLatencies;
  /** The bidders' recent bids. */
  bidLevels: BidLevels;
  /** A learned window stays open while the bids still out are worth the wait (window-value.ts). */
  windowByValue: boolean;
}

/**
 * Pings every ping-post buyer of a group at once and waits for their bids until the ping window closes,
 * never for the slowest bidder: a bid sets the buyer's price, no bid takes it out, and a bid that comes
 * after the window goes to the sale's late bids (late-bids.ts), which the posts still to go out take up.
 */
export class PingRound {
  constructor(private readonly deps: PingRoundDependencies) {}

  /** The group's offers: its direct-post buyers and the bidders in time whose payout meets the floor. */
  async offers(
    group: Candidate[],
    tree: EffectiveTree,
    request: SaleRequest,
    log: AttemptLog,
    waited: { ms: number },
    late: LateBids,
  ): Promise<Candidate[]> {
    const pinged = group.filter((candidate) => candidate.buyer.definition.integration.mode === 'ping_post');
    const directPosts = group.filter((candidate) => candidate.buyer.definition.integration.mode === 'direct_post');
    if (pinged.length === 0) return group;
    const started = performance.now();
    const bidders: Candidate[] = [];
    const answered = new Set<Candidate>();
    let windowOpen = true;
    /** Wakes the window's wait at the next answer. */
    let answerCame = () => {};
    const pings = Promise.all(
      pinged.map(async (candidate) => {
        await this.ping(candidate, request, log, {
          lateBids: () => (windowOpen ? undefined : late),
          inWindow: (bid) => bidders.push(bid),
        });
        answered.add(candidate);
        answerCame();
      }),
    );
    await firstOf(this.windowMs(pinged, tree, request), pings);
    // A learned window stays open while the bids still out are worth more than the time they take.
    const learned = pinged.every(({ buyer }) => tree.pingWindowMs(buyer.definition.tier) === undefined);
    for (;;) {
      const outstanding = pinged.filter((candidate) => !answered.has(candidate));
      const moreMs =
        learned && outstanding.length > 0
          ? this.moreWaitMs(outstanding, [...directPosts, ...bidders], started, request)
          : 0;
      if (moreMs <= 0) break;
      await firstOf(moreMs, pings, new Promise<void>((resolve) => (answerCame = resolve)));
    }
    windowOpen = false;
    waited.ms += performance.now() - started;
    return [...directPosts, ...bidders];
  }

  /** How much longer the window waits for the bidders still out (window-value.ts); 0 without post figures. */
  private moreWaitMs(outstanding: Candidate[], inHand: Candidate[], started: number, request: SaleRequest): number {
    const { figures } = this.deps.timing;
    if (!figures || !this.deps.windowByValue) return 0;
    const { pingLatencies, bidLevels } = this.deps;
    const bidders: OutstandingBidder[] = [];
    for (const candidate of outstanding) {
      const { buyer } = candidate;
      const answerTimesMs = pingLatencies.answerTimesMs(buyer.id);
      const level = bidLevels.level(buyer.id);
      if (!answerTimesMs || !level) continue;
      const bids = level.levelsCents.flatMap((levelCents) => {
        const chargeCents = priceFor(buyer.definition.pricing, candidate.facts, Math.round(levelCents));
        return chargeCents === undefined
          ? []
          : [this.deps.timing.postProspect(figures, { ...candidate, chargeCents }, request)];
      });
      if (bids.length === 0) continue;
      bidders.push({
        answerTimesMs,
        answerRate: pingLatencies.answerRate(buyer.id),
        // A level the buyer's pricing refuses is no bid.
        bidRate: (level.bidRate * bids.length) / level.levelsCents.length,
        timeoutMs: callTimeoutMs(buyer.definition.integration, 'ping'),
        bids,
      });
    }
    return extraWaitMs({
      elapsedMs: performance.now() - started,
      leftMs: request.deadline - Date.now(),
      inHand: inHand.map((candidate) => this.deps.timing.postProspect(figures, candidate, request)),
      outstanding: bidders,
    });
  }

  /**
   * How long the pinged tiers wait for bids: each tier's configured window, else one its bidders' answer
   * times need; tiers pinged at once (price groups, auction) wait for the longest of theirs.
   */
  private windowMs(pinged: Candidate[], tree: EffectiveTree, request: SaleRequest): number {
    const leftMs = request.deadline - Date.now();
    return Math.max(
      ...byTier(pinged).map((tier) =>
        pingWindowMs({
          configuredMs: tree.pingWindowMs(tier[0]!.buyer.definition.tier),
          leftMs,
          bidders: tier.map(({ buyer }) => ({
            timeoutMs: callTimeoutMs(buyer.definition.integration, 'ping'),
            p95Ms: this.deps.pingLatencies.p95Ms(buyer.id),
          })),
        }),
      ),
    );
  }

  /**
   * One bidder's ping; its bid, as an offer, goes to `inWindow` while the window is open, else to the
   * sale's late bids (`lateBids()` once the window has closed), if it may still be posted.
   */
  private async ping(
    candidate: Candidate,
    request: SaleRequest,
    log: AttemptLog,
    to: { lateBids: () => LateBids | undefined; inWindow: (bid: Candidate) => void },
  ): Promise<undefined> {
    const { buyer } = candidate;
    if (!this.deps.timing.fitsDeadline(candidate, 'ping', request)) return log.skip(buyer.id, 'deadline');
    if (!request.lead.test && !this.deps.breakers.allow(buyer.id)) return log.skip(buyer.id, 'circuit_open');
    const result = await this.deps.caller.call('ping', candidate, buyer.definition.integration.ping!, request);
    const answered = result.outcome === 'accepted' || result.outcome === 'rejected';
    const bidCents = result.outcome === 'accepted' ? result.reply.priceCents : undefined;
    if (!request.lead.test) this.learn(buyer.id, answered ? result.latencyMs : undefined, bidCents);
    const late = to.lateBids();
    const refusal = late?.refusal(buyer.definition.tier);
    log.call(buyer.id, {
      kind: 'ping',
      startedAt: result.startedAt,
      durationMs: result.latencyMs,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      bidCents,
      reference: result.reply.reference,
      reason: !late
        ? (result.reply.reason ?? result.reply.error)
        : refusal || result.outcome !== 'accepted'
          ? (refusal ?? 'answered after the ping window')
          : 'answered after the ping window: joined the offers still to post',
    });
    if (refusal || result.outcome !== 'accepted') return undefined;
    // A fixed or rule price stands whether or not the ping named one; a bid buyer must name its bid.
    const chargeCents = priceFor(buyer.definition.pricing, candidate.facts, bidCents);
    if (chargeCents === undefined) return undefined;
    const payoutCents = payoutOf(buyer, request, chargeCents);
    if (payoutCents === undefined || payoutCents < request.lead.priceCents) return log.skip(buyer.id, 'floor');
    const bid = { ...candidate, chargeCents, payoutCents, pingReference: result.reply.reference };
    if (late) late.add(bid);
    else to.inWindow(bid);
    return undefined;
  }

  /** A live ping's answer time (undefined: no answer) and bid, for the windows of the sales to come. */
  private learn(buyerId: string, latencyMs: number | undefined, bidCents: number | undefined): void {
    if (latencyMs === undefined) {
      this.deps.pingLatencies.recordNoAnswer(buyerId);
      return;
    }
    this.deps.pingLatencies.record(buyerId, latencyMs);
    this.deps.bidLevels.record(buyerId, bidCents);
  }
}

/** Waits until the first of `waits` settles or `ms` pass, leaving no timer behind. */
async function firstOf(ms: number, ...waits: Promise<unknown>[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([...waits, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
