import type { Logger } from '@leadflow/service-kit/logger';
import type { Db } from '../db/database.js';
import { loggedError } from '../errors.js';
import type { AttemptRecord } from '../leads/attempt-record.js';
import { listRecentLivePosts } from './lead-post.repository.js';
import {
  type AcceptPrior,
  EVEN_PRIOR,
  overallFigures,
  type PostFigures,
  type PostObservation,
  priceBandOf,
  resultOf,
  segmentFigures,
  WINDOW_POSTS,
} from './post-figures.js';

/**
 * A buyer's accept rate starts at the tree's and weighs it as much as this many posts: a new buyer is
 * taken to accept like the buyers already posted to, until its own posts say otherwise.
 */
const TREE_PRIOR_POSTS = 5;
/** The tree's figures are worked out again at most this often: every buyer's figures follow them. */
const TREE_REFRESH_MS = 1_000;

/**
 * Each buyer's recent live posts, in memory, and the figures learned from them. Loaded from storage at
 * start and again every `refreshMs` (so that every instance learns from every instance's posts),
 * and added to as this instance's sales end, so that no lead waits on a query for them.
 */
export class PostFiguresStore {
  /** Newest first, at most WINDOW_POSTS per buyer. */
  private readonly posts = new Map<string, PostObservation[]>();
  /** By buyer: its figures over every lead, and by state and price band ("TX 2", "TX ", " 2"). */
  private readonly cache = new Map<string, { overall: PostFigures; bySegment: Map<string, PostFigures> }>();
  /** The figures of every buyer's posts together, newest first, and when they were worked out. */
  private tree: { figures: PostFigures; at: number; stale: boolean } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly logger?: Logger,
  ) {}

  /**
   * The figures of a buyer's posts; with `state`, its accept rate for leads of that state, and with
   * `priceBand` (priceBandOf), for leads offered to it at that price.
   */
  figures(buyerId: string, state?: string, priceBand?: number): PostFigures {
    // First: a refresh of the tree's figures clears every buyer's.
    const prior = this.treePrior();
    const posts = this.posts.get(buyerId) ?? [];
    let cached = this.cache.get(buyerId);
    if (!cached) {
      cached = { overall: overallFigures(posts, prior), bySegment: new Map() };
      this.cache.set(buyerId, cached);
    }
    const key = `${state ?? ''} ${priceBand ?? ''}`;
    let figures = cached.bySegment.get(key);
    if (!figures) {
      figures = segmentFigures(cached.overall, posts, state, priceBand);
      cached.bySegment.set(key, figures);
    }
    return figures;
  }

  /**
   * The figures of the most recent posts to any buyer: what a buyer with no posts of its own is taken to
   * do. Worked out again at most every TREE_REFRESH_MS once posts came.
   */
  treeFigures(): PostFigures {
    const now = Date.now();
    if (!this.tree || (this.tree.stale && now - this.tree.at >= TREE_REFRESH_MS)) {
      this.tree = { figures: overallFigures(newestAcross([...this.posts.values()])), at: now, stale: false };
      // Every buyer's accept rate starts at the tree's.
      this.cache.clear();
    }
    return this.tree.figures;
  }

  /** Every buyer with posts, and its figures. */
  *all(): Iterable<[string, PostFigures]> {
    for (const buyerId of this.posts.keys()) yield [buyerId, this.figures(buyerId)];
  }

  /** The posts among one live lead's attempts, as its sale ends; `offeredCents`: what each buyer was offered it at. */
  record(
    attempts: readonly AttemptRecord[],
    state: string,
    offeredCents: (buyerId: string) => number | undefined,
  ): void {
    for (const attempt of attempts) {
      if (attempt.kind !== 'post') continue;
      this.add(attempt.buyerId, {
        leadId: attempt.leadId,
        at: attempt.startedAt,
        latencyMs: attempt.durationMs,
        result: resultOf(attempt.outcome),
        state,
        priceBand: priceBandOf(offeredCents(attempt.buyerId)),
      });
    }
  }

  /** One post learned after its sale ended (its late answer): it takes the place of what was known of it. */
  observe(buyerId: string, observation: PostObservation): void {
    this.add(buyerId, observation);
  }

  /** Reads the most recent live posts of these buyers from storage and merges them with what is in memory. */
  async load(buyerIds: readonly string[]): Promise<void> {
    for (const buyerId of buyerIds) {
      const posts = await listRecentLivePosts(this.db, buyerId, WINDOW_POSTS);
      this.merge(
        buyerId,
        posts.map((post) => ({
          leadId: post.leadId,
          at: post.startedAt,
          latencyMs: post.durationMs,
          result: resultOf(post.outcome),
          state: post.leadState,
          priceBand: priceBandOf(post.chargeCents),
        })),
      );
    }
  }

  /**
   * Loads the figures of `buyerIds()` now and every `refreshMs`. A failed load keeps what is known (at
   * start, nothing: every buyer counts as new until figures come) and is logged.
   */
  async start(buyerIds: () => Promise<readonly string[]>, refreshMs: number): Promise<void> {
    const refresh = () =>
      buyerIds()
        .then((ids) => this.load(ids))
        .catch((error: unknown) =>
          this.logger?.warn({ error: loggedError(error) }, 'loading buyer post figures failed'),
        );
    await refresh();
    this.timer = setInterval(() => {
      this.running ??= refresh().finally(() => (this.running = undefined));
    }, refreshMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private treePrior(): AcceptPrior {
    const tree = this.treeFigures();
    return tree.posts === 0 ? EVEN_PRIOR : { acceptRate: tree.acceptRate, posts: TREE_PRIOR_POSTS };
  }

  /** One post per lead and buyer: a post seen in memory and in storage counts once. */
  private merge(buyerId: string, observations: readonly PostObservation[]): void {
    if (observations.length === 0) return;
    const byLead = new Map((this.posts.get(buyerId) ?? []).map((post) => [post.leadId, post]));
    for (const observation of observations) byLead.set(observation.leadId, observation);
    this.posts.set(buyerId, [...byLead.values()].sort(newestFirst).slice(0, WINDOW_POSTS));
    this.changed(buyerId);
  }

  /** One post as a sale ends: placed among the buyer's posts, which are in order, without sorting them again. */
  private add(buyerId: string, observation: PostObservation): void {
    const posts = this.posts.get(buyerId) ?? [];
    const sameLead = posts.findIndex((post) => post.leadId === observation.leadId);
    if (sameLead >= 0) posts.splice(sameLead, 1);
    let place = 0;
    while (place < posts.length && newestFirst(posts[place]!, observation) < 0) place++;
    posts.splice(place, 0, observation);
    if (posts.length > WINDOW_POSTS) posts.length = WINDOW_POSTS;
    this.posts.set(buyerId, posts);
    this.changed(buyerId);
  }

  private changed(buyerId: string): void {
    this.cache.delete(buyerId);
    if (this.tree) this.tree.stale = true;
  }
}

/** Newest first; posts of the same moment by lead id, so that every instance keeps the same ones. */
function newestFirst(a: PostObservation, b: PostObservation): number {
  return b.at - a.at || (a.leadId < b.leadId ? 1 : -1);
}

/**
 * The WINDOW_POSTS newest posts of lists each given newest first, newest first: a merge that reads as
 * far into each list as it needs, never sorting every buyer's posts.
 */
function newestAcross(lists: readonly (readonly PostObservation[])[]): PostObservation[] {
  const next = lists.map(() => 0);
  const merged: PostObservation[] = [];
  while (merged.length < WINDOW_POSTS) {
    let newest: PostObservation | undefined;
    let newestList = -1;
    for (let list = 0; list < lists.length; list++) {
      const post = lists[list]![next[list]!];
      if (post && (!newest || post.at > newest.at)) {
        newest = post;
        newestList = list;
      }
    }
    if (!newest) break;
    merged.push(newest);
    next[newestList]! += 1;
  }
  return merged;
}
