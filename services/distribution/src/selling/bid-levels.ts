import { insertSorted, MIN_LEARNED_PINGS, removeSorted } from './ping-window.js';

/** A buyer's bid level is learned from this many of its most recent answered pings. */
const RECENT_ANSWERS = 100;

/** How often a bidder bids and what, from its recent answers. */
export interface BidLevel {
  /** Share of its answers that were bids, 0..1. */
  bidRate: number;
  /**
   * What a bid of its is, in cents, as equally likely levels: the means of the lower and the upper half
   * of its recent bids (one level when they are all one bid). A bidder whose bids spread is sometimes
   * worth waiting for where its mean bid is not: the window weighs the chance of its high bid.
   */
  levelsCents: readonly number[];
}

/** A buyer's recent answers in arrival order (a bid in cents, or none), and its bids among them, sorted. */
interface RecentAnswers {
  arrived: (number | undefined)[];
  sortedBids: number[];
}

/**
 * Each bidder's recent answers to pings (a bid, in cents, or none), for what a bid still out may be
 * worth (window-value.ts). At most RECENT_ANSWERS per buyer; the bids are kept sorted as they come, as
 * every lead asks for the levels of the bidders still out.
 */
export class BidLevels {
  private readonly recent = new Map<string, RecentAnswers>();

  record(buyerId: string, bidCents: number | undefined): void {
    let answers = this.recent.get(buyerId);
    if (!answers) {
      answers = { arrived: [], sortedBids: [] };
      this.recent.set(buyerId, answers);
    }
    answers.arrived.push(bidCents);
    if (bidCents !== undefined) insertSorted(answers.sortedBids, bidCents);
    if (answers.arrived.length > RECENT_ANSWERS) {
      const oldest = answers.arrived.shift();
      if (oldest !== undefined) removeSorted(answers.sortedBids, oldest);
    }
  }

  /** The buyer's bid level; undefined before MIN_LEARNED_PINGS answers, or when none was a bid. */
  level(buyerId: string): BidLevel | undefined {
    const answers = this.recent.get(buyerId);
    if (!answers || answers.arrived.length < MIN_LEARNED_PINGS) return undefined;
    const bids = answers.sortedBids;
    if (bids.length === 0) return undefined;
    const bidRate = bids.length / answers.arrived.length;
    if (bids.length === 1) return { bidRate, levelsCents: [bids[0]!] };
    const half = bids.length >> 1;
    const [low, high] = [meanOf(bids, 0, half), meanOf(bids, bids.length - half, bids.length)];
    return { bidRate, levelsCents: low === high ? [low] : [low, high] };
  }
}

/** The mean of sorted[from..to). */
function meanOf(sorted: readonly number[], from: number, to: number): number {
  let sum = 0;
  for (let index = from; index < to; index += 1) sum += sorted[index]!;
  return sum / (to - from);
}
