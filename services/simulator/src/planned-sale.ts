import type { Endpoint } from './config.js';
import { meanOf } from './distributions.js';
import { type BestSale, type BestSaleTerms, drawLenders } from './lead-draws.js';

/*
 * The best a router can do when the lenders' decisions are unknown until it posts. The best sale
 * (lead-draws.ts) knows which lender accepts and posts only to it; no router can, and a lead posted to
 * two lenders at once may be sold twice. The planned sale is the bound for a router that posts one
 * lender at a time: it knows more than any real one (every bid, and every post's latency and fault,
 * in advance; each lender's accept rate exactly) but not whether a post will be accepted. It posts
 * in the order of the highest expected revenue, each post no earlier than its lender's bid came, and
 * sells to the first that accepts.
 */

/** One lender's offer for a lead, as the planner sees it. */
export interface PlannedOffer {
  path: string;
  /** What the plan counts on a sale to bring, in cents: the bid, or a direct post's mean price. */
  valueCents: number;
  acceptRate: number;
  /** When its bid came (0 for a direct post), and how long its post takes, ms. */
  readyAtMs: number;
  postMs: number;
  /** Its post answers with an error: it cannot sell. */
  fails: boolean;
  /** Its post never answers: posting it ends the sale unsold. */
  hangs: boolean;
}

/** Offers past this many (the lowest valued) are left out of the plan, whose cost doubles with each. */
export const MOST_PLANNED_OFFERS = 16;

/**
 * The order of posts (indices into offers) with the highest expected revenue within budgetMs, and that
 * revenue: exact, by dynamic programming over the posts made and the time they took.
 */
export function planPosts(
  offers: readonly PlannedOffer[],
  budgetMs: number,
): { order: number[]; expectedCents: number } {
  const planned = offers
    .map((offer, index) => ({ offer, index }))
    .toSorted((a, b) => b.offer.valueCents - a.offer.valueCents)
    .slice(0, MOST_PLANNED_OFFERS);
  const best = new Map<string, { expectedCents: number; next: number }>();
  const plan = (posted: number, atMs: number): { expectedCents: number; next: number } => {
    const key = `${posted} ${atMs}`;
    const known = best.get(key);
    if (known) return known;
    let choice = { expectedCents: 0, next: -1 };
    planned.forEach(({ offer }, slot) => {
      if (posted & (1 << slot) || offer.hangs) return;
      const answeredAtMs = Math.max(atMs, offer.readyAtMs) + offer.postMs;
      if (answeredAtMs > budgetMs) return;
      const accepts = offer.fails ? 0 : offer.acceptRate;
      const expectedCents =
        accepts * offer.valueCents + (1 - accepts) * plan(posted | (1 << slot), answeredAtMs).expectedCents;
      if (expectedCents > choice.expectedCents) choice = { expectedCents, next: slot };
    });
    best.set(key, choice);
    return choice;
  };
  const order: number[] = [];
  let [posted, atMs] = [0, 0];
  for (let step = plan(posted, atMs); step.next >= 0; step = plan(posted, atMs)) {
    const { offer, index } = planned[step.next]!;
    order.push(index);
    posted |= 1 << step.next;
    atMs = Math.max(atMs, offer.readyAtMs) + offer.postMs;
  }
  return { order, expectedCents: plan(0, 0).expectedCents };
}

/**
 * The sale the plan makes of this lead: its posts in order until the first that accepts (by the lead's
 * draws), at the bid or the direct post's drawn price. Undefined when none in the plan accepts.
 */
export function plannedSale(
  endpoints: readonly Endpoint[],
  seed: number,
  lead: string,
  terms: BestSaleTerms,
): BestSale | undefined {
  const offers: (PlannedOffer & { priceCents: number | undefined; accepts: boolean })[] = [];
  for (const { endpoint, post, pinged } of drawLenders(endpoints, seed, lead)) {
    if (pinged && pinged.amountCents === undefined) continue;
    const valueCents = pinged
      ? pinged.amountCents!
      : endpoint.kind === 'direct_post'
        ? Math.round(meanOf(endpoint.price) * 100)
        : 0;
    if (valueCents < terms.minPriceCents) continue;
    offers.push({
      path: endpoint.path,
      valueCents,
      acceptRate: endpoint.acceptRate,
      readyAtMs: pinged?.latencyMs ?? 0,
      postMs: post.latencyMs,
      fails: post.fault !== undefined,
      hangs: post.fault === 'hang',
      priceCents: pinged ? pinged.amountCents : post.amountCents,
      accepts: post.accepts,
    });
  }
  let atMs = 0;
  for (const index of planPosts(offers, terms.budgetMs).order) {
    const offer = offers[index]!;
    atMs = Math.max(atMs, offer.readyAtMs) + offer.postMs;
    if (offer.accepts && offer.priceCents !== undefined && offer.priceCents >= terms.minPriceCents)
      return { path: offer.path, priceCents: offer.priceCents, durationMs: atMs };
  }
  return undefined;
}
