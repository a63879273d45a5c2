import { callTimeoutMs } from '../buyers/definition/buyer-definition.js';
import type { Candidate } from './candidate.js';
import type { SaleRequest } from './lead-seller.js';
import { type PostFigures, priceBandOf } from './post-figures.js';
import type { PostFiguresStore } from './post-figures-store.js';
import { type PostProspect, prospectOf } from './post-order.js';

/**
 * A call goes out when this share of its timeout is left (the call is then cut to the deadline); a post
 * to a buyer with learned figures, when its median answer time is; to a buyer with none, when the tree's
 * is (at most this share of its timeout); in a tree with none, when this share of its timeout or of the
 * sale's own budget is.
 */
const USEFUL_SHARE = 0.5;

export type CallKind = 'ping' | 'post';

/** When a call to a buyer is still worth making before a sale's deadline, from the buyers' learned figures. */
export class CallTiming {
  constructor(readonly figures: PostFiguresStore | undefined) {}

  fitsDeadline(candidate: Candidate, kind: CallKind, request: SaleRequest): boolean {
    return Date.now() + this.minimumTimeMs(candidate, kind, request) <= request.deadline;
  }

  /**
   * The least time that must be left for a call to go out: a useful part of its timeout, not all of it.
   * A post cut short by the deadline after it was sent has an unknown outcome, and the lead waits for
   * that buyer's answer (unconfirmed): it is never offered to another, and the answer, when it comes,
   * settles it (late-answers.ts) and teaches the buyer's figures. So while no post anywhere has taught
   * any (a new tree), a post needs half its timeout or half the sale's own budget, whichever is less: a
   * trial of the time the network set for its buyers, where half a long timeout would never be tried.
   */
  minimumTimeMs(candidate: Candidate, kind: CallKind, request: SaleRequest): number {
    const timeoutMs = callTimeoutMs(candidate.buyer.definition.integration, kind);
    const usefulMs = timeoutMs * USEFUL_SHARE;
    if (kind === 'ping' || !this.figures) return usefulMs;
    const ownMs = this.figuresOf(this.figures, candidate, request).p50Ms;
    if (ownMs !== undefined) return Math.min(timeoutMs, ownMs);
    const treeMs = this.figures.treeFigures().p50Ms ?? request.budgetMs * USEFUL_SHARE;
    return Math.min(usefulMs, treeMs);
  }

  /** A buyer's learned figures for this lead: its state, and the price band of the offer. */
  figuresOf(figures: PostFiguresStore, candidate: Candidate, request: SaleRequest): PostFigures {
    return figures.figures(candidate.buyer.id, request.lead.fields.state, priceBandOf(candidate.chargeCents));
  }

  /** What is expected of posting the candidate's offer now, by the buyers' learned figures (post-order.ts). */
  postProspect(figures: PostFiguresStore, candidate: Candidate, request: SaleRequest): PostProspect {
    const { integration } = candidate.buyer.definition;
    return prospectOf(
      this.figuresOf(figures, candidate, request),
      {
        valueCents: candidate.chargeCents ?? 0,
        timeoutMs: callTimeoutMs(integration, 'post'),
        minimumTimeMs: this.minimumTimeMs(candidate, 'post', request),
        timeoutEndsSale: integration.onTimeout !== 'decline',
      },
      figures.treeFigures(),
    );
  }
}
