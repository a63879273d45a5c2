import type { Candidate } from './candidate.js';

/**
 * Bids answered after their ping window, for the offers still to post. The window decides when posting
 * may start, not which bids may be used: a bid that comes while its group's posts are still going out
 * joins the offers not yet posted. Once a group's posts are over (in strict tiers, the sale moved on to
 * the next tier's offers) or the sale has ended, a bid for it is recorded and not used.
 */
export class LateBids {
  private readonly waiting: Candidate[] = [];
  private readonly closedTiers = new Set<number>();
  private ended = false;

  /** Why a bid of this tier answered now can no longer be posted; undefined when it can. */
  refusal(tier: number): string | undefined {
    if (this.ended) return 'answered after the ping window: not used, the sale had ended';
    if (this.closedTiers.has(tier)) return "answered after the ping window: not used, its tier's posts were over";
    return undefined;
  }

  add(bid: Candidate): void {
    this.waiting.push(bid);
  }

  /** The late bids of these tiers, taken out of the waiting ones. */
  take(tiers: ReadonlySet<number>): Candidate[] {
    const taken = this.waiting.filter((bid) => tiers.has(bid.buyer.definition.tier));
    if (taken.length > 0)
      this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((bid) => !taken.includes(bid)));
    return taken;
  }

  /** These tiers' posts are over: their bids still to come are not used. */
  closeTiers(tiers: Iterable<number>): void {
    for (const tier of tiers) this.closedTiers.add(tier);
  }

  /** The sale is decided: no bid still to come is used. */
  end(): void {
    this.ended = true;
  }
}
