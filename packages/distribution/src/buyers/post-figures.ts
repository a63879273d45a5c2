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
}

/** The learned figures of one buyer's posts. */
export interface PostFigures {
  /** Posts the figures come from (the most recent, at most WINDOW_POSTS). */
  posts: number;
  /** Of the answered posts, the share accepted, smoothed toward one half while there are few. */
  acceptRate: number;
  /** Share of posts that got no answer in time. */
  unansweredRate: number;
  /** Post latency, median and 90th percentile, ms (unanswered posts as censored); undefined without posts. */
  p50Ms: number | undefined;
  p90Ms: number | undefined;
}

/** The figures come from this many of the buyer's most recent posts. */
export const WINDOW_POSTS = 200;
/** A post weighs half as much as one this many posts newer: the figures follow a buyer that changes. */
export const HALF_LIFE_POSTS = 50;
/** A state's own accept rate counts as much as this many posts against the buyer's overall one. */
const STATE_SHRINK_POSTS = 20;

export function resultOf(outcome: BuyerAttemptOutcome): PostResult {
  if (outcome === 'accepted') return 'accepted';
  return outcome === 'timeout' || outcome === 'unknown' ? 'unanswered' : 'declined';
}

/**
 * Figures of posts given newest first (only the first WINDOW_POSTS count). Each weighs by its recency;
 * the accept rate is Laplace-smoothed ((accepted + 1) / (answered + 2), weighted), so that a buyer with
 * no history starts at one half. With `state`, the accept rate is that state's, pulled toward the
 * buyer's overall rate as much as STATE_SHRINK_POSTS posts would.
 */
export function summarizePosts(newestFirst: readonly PostObservation[], state?: string): PostFigures {
  const window = newestFirst.slice(0, WINDOW_POSTS);
  const weighted = window.map((post, rank) => ({ post, weight: 0.5 ** (rank / HALF_LIFE_POSTS) }));
  const total = sum(weighted.map(({ weight }) => weight));
  const overall = acceptRateOf(weighted);
  let acceptRate = overall;
  if (state !== undefined) {
    const local = weighted.filter(({ post }) => post.state === state);
    const answered = sum(local.filter(({ post }) => post.result !== 'unanswered').map(({ weight }) => weight));
    const accepted = sum(local.filter(({ post }) => post.result === 'accepted').map(({ weight }) => weight));
    acceptRate = (accepted + STATE_SHRINK_POSTS * overall) / (answered + STATE_SHRINK_POSTS);
  }
  const unanswered = sum(weighted.filter(({ post }) => post.result === 'unanswered').map(({ weight }) => weight));
  const [p50Ms, p90Ms] = latencyQuantiles(
    weighted.map(({ post, weight }) => ({ latencyMs: post.latencyMs, answered: post.result !== 'unanswered', weight })),
    [0.5, 0.9],
  );
  return {
    posts: window.length,
    acceptRate,
    unansweredRate: total > 0 ? unanswered / total : 0,
    p50Ms,
    p90Ms,
  };
}

function acceptRateOf(weighted: readonly { post: PostObservation; weight: number }[]): number {
  const answered = sum(weighted.filter(({ post }) => post.result !== 'unanswered').map(({ weight }) => weight));
  const accepted = sum(weighted.filter(({ post }) => post.result === 'accepted').map(({ weight }) => weight));
  return (accepted + 1) / (answered + 2);
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
