import { callTimeoutMs } from '../buyers/definition/buyer-definition.js';
import { priceFor } from '../buyers/rules/pricing.js';
import type { EffectiveTree } from '../buyers/tree/tree-settings.js';
import type { AttemptLog } from './attempt-log.js';
import type { CallTiming } from './call-timing.js';
import { type Candidate, payoutOf } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { SaleRequest } from './lead-seller.js';
import { type PingLatencies, pingWindowMs } from './ping-window.js';
import { byTier } from './selection.js';
import type { BuyerCaller } from './traced-call.js';

export interface PingRoundDependencies {
  caller: BuyerCaller;
  breakers: CircuitBreakers;
  timing: CallTiming;
  /** The bidders' recent ping answer times. */
  pingLatencies: PingLatencies;
}

/**
 * Pings every ping-post buyer of a group at once and waits for their bids until the ping window closes,
 * never for the slowest bidder: a bid sets the buyer's price, no bid takes it out, and a bid that comes
 * after the window is recorded as late and not used.
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
  ): Promise<Candidate[]> {
    const pinged = group.filter((candidate) => candidate.buyer.definition.integration.mode === 'ping_post');
    const directPosts = group.filter((candidate) => candidate.buyer.definition.integration.mode === 'direct_post');
    if (pinged.length === 0) return group;
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
      (resolve) => (closeWindow = setTimeout(resolve, this.windowMs(pinged, tree, request))),
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

  /** One bidder's ping; its bid as an offer, or undefined. `inWindow` says whether a bid still counts. */
  private async ping(
    candidate: Candidate,
    request: SaleRequest,
    log: AttemptLog,
    inWindow: () => boolean,
  ): Promise<Candidate | undefined> {
    const { buyer } = candidate;
    if (!this.deps.timing.fitsDeadline(candidate, 'ping', request)) return log.skip(buyer.id, 'deadline');
    if (!request.lead.test && !this.deps.breakers.allow(buyer.id)) return log.skip(buyer.id, 'circuit_open');
    const result = await this.deps.caller.call('ping', candidate, buyer.definition.integration.ping!, request);
    const answered = result.outcome === 'accepted' || result.outcome === 'rejected';
    if (answered && !request.lead.test) this.deps.pingLatencies.record(buyer.id, result.latencyMs);
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
    const payoutCents = payoutOf(buyer, request, chargeCents);
    if (payoutCents === undefined || payoutCents < request.lead.priceCents) return log.skip(buyer.id, 'floor');
    return { ...candidate, chargeCents, payoutCents, pingReference: result.reply.reference };
  }
}
