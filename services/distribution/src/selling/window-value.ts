import { type PostProspect, revenueOfOrders } from './post-order.js';

/*
 * Whether a learned ping window that would close now is worth keeping open, as a plain function of
 * figures: what the bids in hand bring if posting starts now, against what they and the bids still out
 * bring if posting starts later, with less time left for the posts. A bidder is waited for only as far
 * as its own recent answers say it answers: one that hangs, or is already later than it ever was, holds
 * nothing.
 */

/** A pinged bidder whose answer has not come yet, by its learned figures. */
export interface OutstandingBidder {
  /** Its recent answer times (ms from its ping), sorted ascending. */
  answerTimesMs: readonly number[];
  /** Share of its recent pings that were answered at all, 0..1: the rest hung or failed. */
  answerRate: number;
  /** Share of its answers that were bids that can be posted, 0..1. */
  bidRate: number;
  /** Its ping's timeout, ms from its ping: no answer comes later. */
  timeoutMs: number;
  /**
   * The post of its bid at each of its bid levels, equally likely, as post-order.ts sees it (valueCents
   * the level): a bidder whose bids spread may beat the bids in hand where its mean bid would not.
   */
  bids: readonly PostProspect[];
}

export interface WindowValueInput {
  /** Since the pings went out. */
  elapsedMs: number;
  /** Until the sale's deadline. */
  leftMs: number;
  /** The posts of the offers in hand. */
  inHand: readonly PostProspect[];
  outstanding: readonly OutstandingBidder[];
}

/** Waiting wins only when it expects this much more revenue (relative): noise never holds a sale. */
const MIN_GAIN = 0.01;
/**
 * At most this many outcomes of the bidders still out are walked: the most valuable bidders are weighed
 * while their outcomes (no bid, or a bid at one of their levels) multiply to no more than this.
 */
const MOST_OUTCOMES = 27;
/** The points of a bidder's answer times a wait may end at. */
const WAIT_QUANTILES = [0.5, 0.75, 0.9, 0.95, 1];
/**
 * Each learned answer time stands for answers this much earlier or later (spread evenly): the next
 * answer of a bidder that answered in 300 ms may come at 330 ms on a busy network, not never.
 */
const ANSWER_SPREAD = 0.15;

/**
 * How much longer the window stays open: 0 closes it now. The longest-paying of the waits that end
 * where a bidder's answers usually come (WAIT_QUANTILES of its recent answer times, never past its
 * ping timeout nor the deadline), when it expects at least MIN_GAIN more than posting now.
 */
export function extraWaitMs({ elapsedMs, leftMs, inHand, outstanding }: WindowValueInput): number {
  const weighed = mostValuable(outstanding.filter((bidder) => arrivalWithin(bidder, elapsedMs, leftMs) > 0));
  if (weighed.length === 0) return 0;
  const orders = new OfferOrders(byValue(inHand), weighed);
  const postNow = orders.revenue(0, leftMs);
  let best = { waitMs: 0, revenue: postNow * (1 + MIN_GAIN) };
  for (const waitMs of waits(weighed, elapsedMs, leftMs)) {
    const revenue = revenueAfter(orders, weighed, elapsedMs, waitMs, leftMs);
    if (revenue > best.revenue) best = { waitMs, revenue };
  }
  return best.waitMs;
}

/**
 * The offers posted best first for each outcome of the bidders still out: per bidder no bid (0) or its
 * bid at one of its levels (1 to its number of levels), one digit each. The figures of every offer that
 * may be posted are worked out once, and each outcome's order once, then weighed at every wait.
 */
class OfferOrders {
  /** Each outcome's digits, one per bidder: the product over the bidders of one plus their levels. */
  readonly outcomes: (readonly number[])[];
  /** The offers in hand (best first), then each bidder's bids, level by level. */
  private readonly offers: PostProspect[];
  private readonly revenueOf: (order: readonly number[], timeLeftMs: number) => number;
  private readonly byOutcome: (readonly number[])[] = [];

  constructor(
    private readonly inHand: readonly PostProspect[],
    private readonly bidders: readonly OutstandingBidder[],
  ) {
    this.outcomes = bidders.reduce<number[][]>(
      (outcomes, bidder) =>
        outcomes.flatMap((digits) => Array.from({ length: 1 + bidder.bids.length }, (_, digit) => [...digits, digit])),
      [[]],
    );
    this.offers = [...inHand, ...bidders.flatMap((bidder) => bidder.bids)];
    this.revenueOf = revenueOfOrders(this.offers);
  }

  /** Expected revenue of posting the offers in hand and the bids of `outcome`, with `timeLeftMs` left. */
  revenue(outcome: number, timeLeftMs: number): number {
    let order = this.byOutcome[outcome];
    if (!order) {
      order = this.orderOf(outcome);
      this.byOutcome[outcome] = order;
    }
    return this.revenueOf(order, timeLeftMs);
  }

  /** The offers in hand and the outcome's bids, best first (offers of one value in the order given). */
  private orderOf(outcome: number): number[] {
    const order = this.inHand.map((_, index) => index);
    let firstBid = this.inHand.length;
    for (const [index, digit] of this.outcomes[outcome]!.entries()) {
      if (digit > 0) order.push(firstBid + digit - 1);
      firstBid += this.bidders[index]!.bids.length;
    }
    // Stable: the offers in hand keep their order among themselves and come before bids of their value.
    return order.sort((a, b) => this.offers[b]!.valueCents - this.offers[a]!.valueCents || a - b);
  }
}

/** The most valuable bidders whose outcomes multiply to at most MOST_OUTCOMES. */
function mostValuable(bidders: readonly OutstandingBidder[]): OutstandingBidder[] {
  const weighed: OutstandingBidder[] = [];
  let outcomes = 1;
  for (const bidder of bidders.toSorted((a, b) => worth(b) - worth(a))) {
    outcomes *= 1 + bidder.bids.length;
    if (outcomes > MOST_OUTCOMES) break;
    weighed.push(bidder);
  }
  return weighed;
}

/** What one bidder's post may bring: its bids at their accept rates, if it bids. */
function worth(bidder: OutstandingBidder): number {
  const perLevel = bidder.bids.reduce((sum, bid) => sum + bid.acceptRate * bid.valueCents, 0);
  return (bidder.bidRate * perLevel) / bidder.bids.length;
}

/** The waits worth weighing: where the bidders' answers usually come, after now and in time. */
function waits(bidders: readonly OutstandingBidder[], elapsedMs: number, leftMs: number): number[] {
  const ends = new Set<number>();
  for (const bidder of bidders) {
    const times = bidder.answerTimesMs;
    const quantiles = WAIT_QUANTILES.map((quantile) => times[Math.ceil(times.length * quantile) - 1]!);
    for (const at of [...quantiles, times.at(-1)! * (1 + ANSWER_SPREAD)]) {
      const end = Math.min(at, bidder.timeoutMs, elapsedMs + leftMs);
      if (end > elapsedMs) ends.add(end - elapsedMs);
    }
  }
  return [...ends].sort((a, b) => a - b);
}

/**
 * The chance that the bidder's answer comes within the next `waitMs`, given it has not come in
 * `elapsedMs`: from its recent answer times (each spread by ANSWER_SPREAD) and how often it answers at
 * all, never past its timeout.
 */
export function arrivalWithin(bidder: OutstandingBidder, elapsedMs: number, waitMs: number): number {
  const times = bidder.answerTimesMs;
  if (times.length === 0 || waitMs <= 0) return 0;
  const answeredBy = (ms: number) => bidder.answerRate * spreadShareBy(times, ms);
  const stillOut = 1 - answeredBy(elapsedMs);
  if (stillOut <= 0) return 0;
  const end = Math.min(elapsedMs + waitMs, bidder.timeoutMs);
  return Math.max(0, answeredBy(end) - answeredBy(elapsedMs)) / stillOut;
}

/**
 * Expected revenue of posting after `waitMs` more: over every outcome of the bidders still out (which
 * bid in the wait, and at which level), with its chance, the offers in hand and the bids posted best
 * first in the time then left.
 */
function revenueAfter(
  orders: OfferOrders,
  bidders: readonly OutstandingBidder[],
  elapsedMs: number,
  waitMs: number,
  leftMs: number,
): number {
  const bids = bidders.map((bidder) => arrivalWithin(bidder, elapsedMs, waitMs) * bidder.bidRate);
  let revenue = 0;
  for (const [outcome, digits] of orders.outcomes.entries()) {
    let chance = 1;
    for (const [index, digit] of digits.entries()) {
      chance *= digit === 0 ? 1 - bids[index]! : bids[index]! / bidders[index]!.bids.length;
    }
    if (chance > 0) revenue += chance * orders.revenue(outcome, leftMs - waitMs);
  }
  return revenue;
}

/** Best offer first, as rankOffers posts them; offers of the same value in the order given. */
function byValue(offers: readonly PostProspect[]): PostProspect[] {
  return offers.toSorted((a, b) => b.valueCents - a.valueCents);
}

/** The share of the answer times, each spread evenly by ANSWER_SPREAD around it, that are at most `ms`. */
function spreadShareBy(times: readonly number[], ms: number): number {
  let share = 0;
  for (const time of times) {
    const from = time * (1 - ANSWER_SPREAD);
    const width = time * 2 * ANSWER_SPREAD;
    share += width <= 0 ? (ms >= time ? 1 : 0) : Math.min(1, Math.max(0, (ms - from) / width));
  }
  return share / times.length;
}
