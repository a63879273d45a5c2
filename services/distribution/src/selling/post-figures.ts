import type { BuyerAttemptOutcome } from '../db/schema.js';

/*
 * What a buyer's own recent posts say of it: how often it accepts and how long it takes to answer.
 * Plain functions of the posts; the store (post-figures-store.ts) keeps the posts.
 */

/** How a post ended for learning: accepted, answered with a no (or an error), or no answer at all. */
export type PostResult = 'accepted' | 'declined' | 'unanswered';

/** One post of a live lead, as the audit trail records it. */
export interface PostObservation {
  leadId: string;
  /** When the post was sent, epoch ms. */
  at: number;
  latencyMs: number;
  result: PostResult;
  /** The lead's US state: accept rates differ by state. */
  state: string;
  /** The band of the price the lead was offered to the buyer at (priceBandOf); undefined if unknown. */
  priceBand: number | undefined;
}

/** The learned figures of one buyer's posts. */
export interface PostFigures {
  /** Posts the figures come from (the most recent, at most WINDOW_POSTS). */
  posts: number;
  /** Of the answered posts, the share accepted, smoothed toward a prior (the tree's rate) while there are few. */
  acceptRate: number;
  /** Share of posts that got no answer in time. */
  unansweredRate: number;
  /**
   * Share of posts never answered: no answer came, not even in the time the buyer's slowest answer
   * took (a hang, or a connection lost after the lead was sent). Smoothed toward none as much as
   * SILENT_PRIOR_POSTS posts would, so that one hang does not bar a buyer.
   */
  silentRate: number;
  /** Post latency, median and 90th percentile, ms (unanswered posts as censored); undefined without posts. */
  p50Ms: number | undefined;
  p90Ms: number | undefined;
  /** The accept rate the buyer's own posts are smoothed toward. */
  priorAcceptRate: number;
  /** Of the posts, those answered and those accepted, counted (not weighted). */
  answeredPosts: number;
  acceptedPosts: number;
}

/** The figures come from this many of the buyer's most recent posts. */
export const WINDOW_POSTS = 200;
/** A post weighs half as much as one this many posts newer: the figures follow a buyer that changes. */
export const HALF_LIFE_POSTS = 50;
/**
 * A state's own accept rate counts as much as this many posts against the buyer's overall one, and a
 * price band's (within the state, when there is one) as much against the state's.
 */
const SEGMENT_SHRINK_POSTS = 20;
/** A buyer's share of posts never answered starts at none, as much as this many posts weigh. */
const SILENT_PRIOR_POSTS = 2;
/**
 * Upper bounds of the price bands, in cents: under $10, $10-25, $25-50, $50-100, $100 and more. A lender
 * often takes cheap leads and turns down dear ones, or the other way round.
 */
const PRICE_BAND_BOUNDS_CENTS = [1_000, 2_500, 5_000, 10_000] as const;

/** The price band of a post offered at `cents`: 0 (under $10) to 4 ($100 and more); undefined if unknown. */
export function priceBandOf(cents: number | null | undefined): number | undefined {
  if (cents === null || cents === undefined) return undefined;
  const band = PRICE_BAND_BOUNDS_CENTS.findIndex((bound) => cents < bound);
  return band === -1 ? PRICE_BAND_BOUNDS_CENTS.length : band;
}

export function resultOf(outcome: BuyerAttemptOutcome): PostResult {
  if (outcome === 'accepted') return 'accepted';
  return outcome === 'timeout' || outcome === 'unknown' ? 'unanswered' : 'declined';
}

/** Where a buyer's accept rate starts, and how many posts' worth that start weighs. */
export interface AcceptPrior {
  acceptRate: number;
  posts: number;
}

/** Laplace smoothing: a buyer with no history at one half, pulled there as much as two posts would. */
export const EVEN_PRIOR: AcceptPrior = { acceptRate: 0.5, posts: 2 };

/**
 * Figures of posts given newest first (only the first WINDOW_POSTS count). Each weighs by its recency;
 * the accept rate is smoothed toward `prior` (by default Laplace: (accepted + 1) / (answered + 2),
 * weighted), so that a buyer with no history starts at the prior. These are the figures of every lead;
 * segmentFigures gives those of a state and a price band.
 */
export function overallFigures(newestFirst: readonly PostObservation[], prior: AcceptPrior = EVEN_PRIOR): PostFigures {
  const window = newestFirst.slice(0, WINDOW_POSTS);
  let total = 0;
  let unanswered = 0;
  let answeredPosts = 0;
  let acceptedPosts = 0;
  for (const [rank, post] of window.entries()) {
    total += RECENCY_WEIGHTS[rank]!;
    if (post.result === 'unanswered') unanswered += RECENCY_WEIGHTS[rank]!;
    else answeredPosts += 1;
    if (post.result === 'accepted') acceptedPosts += 1;
  }
  const [p50Ms, p90Ms] = latencyQuantiles(
    window.map((post, rank) => ({
      latencyMs: post.latencyMs,
      answered: post.result !== 'unanswered',
      weight: RECENCY_WEIGHTS[rank]!,
    })),
    [0.5, 0.9],
  );
  return {
    posts: window.length,
    acceptRate: acceptRateToward(window, undefined, undefined, prior.acceptRate, prior.posts),
    unansweredRate: total > 0 ? unanswered / total : 0,
    silentRate: silentShare(window, total),
    p50Ms,
    p90Ms,
    priorAcceptRate: prior.acceptRate,
    answeredPosts,
    acceptedPosts,
  };
}

/**
 * `overall` (overallFigures of the same posts) with the accept rate of leads of `state` and `priceBand`:
 * with `state`, that state's, pulled toward the overall rate as much as SEGMENT_SHRINK_POSTS posts
 * would; with `priceBand` too, that band's within the state (or overall), pulled the same way toward the
 * rate above it. Only the accept rate differs by segment, and it is worked out without building
 * anything: a lead's post plan asks it of every bidder, for the lead's own state and price.
 */
export function segmentFigures(
  overall: PostFigures,
  newestFirst: readonly PostObservation[],
  state: string | undefined,
  priceBand: number | undefined,
): PostFigures {
  if (state === undefined && priceBand === undefined) return overall;
  let { acceptRate } = overall;
  if (state !== undefined)
    acceptRate = acceptRateToward(newestFirst, state, undefined, acceptRate, SEGMENT_SHRINK_POSTS);
  if (priceBand !== undefined)
    acceptRate = acceptRateToward(newestFirst, state, priceBand, acceptRate, SEGMENT_SHRINK_POSTS);
  return { ...overall, acceptRate };
}

/** Each rank's weight (newest 0): worked out once, as every buyer's figures weigh their posts alike. */
const RECENCY_WEIGHTS = Array.from({ length: WINDOW_POSTS }, (_, rank) => 0.5 ** (rank / HALF_LIFE_POSTS));

/**
 * The weighted share of posts never answered (`totalWeight` the window's): unanswered, and given at
 * least the time of the slowest answer (a post cut shorter may still have been answered). All
 * unanswered posts when none was answered.
 */
function silentShare(window: readonly PostObservation[], totalWeight: number): number {
  let slowestAnswerMs = 0;
  for (const post of window)
    if (post.result !== 'unanswered') slowestAnswerMs = Math.max(slowestAnswerMs, post.latencyMs);
  let silent = 0;
  for (const [rank, post] of window.entries()) {
    if (post.result === 'unanswered' && post.latencyMs >= slowestAnswerMs) silent += RECENCY_WEIGHTS[rank]!;
  }
  return silent / (totalWeight + SILENT_PRIOR_POSTS);
}

/**
 * The weighted share of the answered posts of a segment (of `state` and of `priceBand`, each where
 * given) accepted, pulled toward `prior` as much as `priorPosts` posts would (with 0.5 and 2: Laplace
 * smoothing). Weights by rank among the first WINDOW_POSTS posts.
 */
function acceptRateToward(
  newestFirst: readonly PostObservation[],
  state: string | undefined,
  priceBand: number | undefined,
  prior: number,
  priorPosts: number,
): number {
  let answered = 0;
  let accepted = 0;
  const end = Math.min(newestFirst.length, WINDOW_POSTS);
  for (let rank = 0; rank < end; rank++) {
    const post = newestFirst[rank]!;
    if ((state !== undefined && post.state !== state) || (priceBand !== undefined && post.priceBand !== priceBand))
      continue;
    if (post.result !== 'unanswered') answered += RECENCY_WEIGHTS[rank]!;
    if (post.result === 'accepted') accepted += RECENCY_WEIGHTS[rank]!;
  }
  return (accepted + priorPosts * prior) / (answered + priorPosts);
}

/**
 * Latency quantiles of weighted posts, a post without an answer taken as right-censored: it took longer
 * than the time it was given (often cut short by the sale's deadline), but how much longer is unknown. The
 * weighted Kaplan-Meier estimate: each answer's share of the posts still running at its time. A quantile
 * the answers never reach (too many posts unanswered) is the longest time seen. Undefined without posts.
 */
export function latencyQuantiles(
  posts: readonly { latencyMs: number; answered: boolean; weight: number }[],
  shares: readonly number[],
): (number | undefined)[] {
  if (posts.length === 0) return shares.map(() => undefined);
  // At equal times an answer comes first: a post cut at that time was still running when it came.
  const ordered = posts.toSorted((a, b) => a.latencyMs - b.latencyMs || Number(b.answered) - Number(a.answered));
  const quantiles: (number | undefined)[] = shares.map(() => undefined);
  let running = sum(posts.map(({ weight }) => weight));
  let unfinished = 1;
  for (const post of ordered) {
    if (post.answered && running > 0) {
      unfinished *= 1 - post.weight / running;
      shares.forEach((share, index) => {
        if (quantiles[index] === undefined && 1 - unfinished >= share - 1e-9) quantiles[index] = post.latencyMs;
      });
    }
    running -= post.weight;
  }
  const longest = ordered.at(-1)!.latencyMs;
  return quantiles.map((quantile) => quantile ?? longest);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
