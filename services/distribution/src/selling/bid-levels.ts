import { MIN_LEARNED_PINGS } from './ping-window.js';

/** A buyer's bid level is learned from this many of its most recent answered pings. */
const RECENT_ANSWERS = 100;

/** How often a bidder bids and what, from its recent answers. */
export interface BidLevel {
  /** Share of its answers that were bids, 0..1. */
  bidRate: number;
  /** Its mean bid, in cents. */
  bidCents: number;
}

/**
 * Each bidder's recent answers to pings (a bid, in cents, or none), for what a bid still out may be
 * worth (window-value.ts). At most RECENT_ANSWERS per buyer.
 */
export class BidLevels {
  private readonly recent = new Map<string, (number | undefined)[]>();

  record(buyerId: string, bidCents: number | undefined): void {
    const answers = this.recent.get(buyerId) ?? [];
    answers.push(bidCents);
    if (answers.length > RECENT_ANSWERS) answers.shift();
    this.recent.set(buyerId, answers);
  }

  /** The buyer's bid level; undefined before MIN_LEARNED_PINGS answers, or when none was a bid. */
  level(buyerId: string): BidLevel | undefined {
    const answers = this.recent.get(buyerId);
    if (!answers || answers.length < MIN_LEARNED_PINGS) return undefined;
    const bids = answers.filter((bid): bid is number => bid !== undefined);
    if (bids.length === 0) return undefined;
    return { bidRate: bids.length / answers.length, bidCents: bids.reduce((sum, bid) => sum + bid, 0) / bids.length };
  }
}
