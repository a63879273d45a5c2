/*
 * Deadline-aware expected-value ordering of posts, as plain functions of figures: what each offer
 * would bring, how often its buyer accepts, how long its posts take, and the time left in the sale.
 * With time to walk every offer in price order, the price order stands; only when there is not does
 * the order change, and only for one that expects to bring measurably more.
 */

import { type LatencyProfile, logNormal, normalCdf } from './latency-curve.js';
import { LatencyScenarios } from './post-scenarios.js';

export type { LatencyProfile } from './latency-curve.js';

/** What is expected of posting one offer. */
export interface PostProspect {
  /** What a sale to it brings, in cents; 0 when its price is only known from its answer. */
  valueCents: number;
  /** Chance that a post it answers is an acceptance, 0..1. */
  acceptRate: number;
  latency: LatencyProfile;
  /**
   * Chance that a post is never answered at all (a hang), 0..1: the latency's log-normal has almost no
   * mass past the timeout, where a buyer that hangs now and then has all of it.
   */
  silentRate: number;
  /** The post's own timeout, ms. */
  timeoutMs: number;
  /** The least time left with which the post is sent at all (with less it is skipped for `deadline`). */
  minimumTimeMs: number;
  /** A post with no answer in time ends the sale (the lead is unconfirmed); false when it counts as a decline. */
  timeoutEndsSale: boolean;
}

/** The order changes only for one that expects this much more revenue (relative): noise never reorders. */
const MIN_GAIN = 0.005;
/** Up to this many offers every order is tried; beyond, a local search from good starting orders. */
const EXHAUSTIVE_UP_TO = 5;
/** Rounds of the local search: each moves one offer to the place that pays best. */
const SEARCH_ROUNDS = 8;

/**
 * The order to post `prospects` in (indices into it, which is in price order): the price order when
 * walking it leaves time for every post, else the order of the highest expected revenue within
 * `timeLeftMs` over joint draws of the answer times (post-scenarios.ts), kept only when it beats the
 * price order by at least MIN_GAIN. Up to EXHAUSTIVE_UP_TO offers every order is weighed so; beyond, a
 * local search with each answer taken at its expected time finds the order to weigh.
 */
export function planPosts(prospects: readonly PostProspect[], timeLeftMs: number): number[] {
  const priceOrder = prospects.map((_, index) => index);
  if (prospects.length < 2 || timeForAll(prospects, timeLeftMs)) return priceOrder;
  const scenarios = new LatencyScenarios(prospects);
  const best =
    prospects.length <= EXHAUSTIVE_UP_TO
      ? scenarios.bestOrder(timeLeftMs)
      : localSearch(prospects, priceOrder, new Walk(prospects, timeLeftMs));
  const revenue = (order: readonly number[]) => scenarios.revenue(order, timeLeftMs);
  return revenue(best) > revenue(priceOrder) * (1 + MIN_GAIN) ? best : priceOrder;
}

/** A post the sale gets to unsold with less than this chance needs no time kept for it. */
const NEGLIGIBLE_REACH = 0.001;

/**
 * True when every post in price order that the sale has a real chance to get to can be sent: walking
 * them with each taking its 90th percentile (at most its timeout), the time left before each is still
 * at least what it needs to be sent, until the chance that none of the posts so far accepted is
 * negligible. (A post left unanswered ends the sale unsold: that is no reason to stop looking.)
 */
export function timeForAll(prospects: readonly PostProspect[], timeLeftMs: number): boolean {
  let left = timeLeftMs;
  let unsold = 1;
  for (const prospect of prospects) {
    if (unsold < NEGLIGIBLE_REACH) return true;
    if (left < prospect.minimumTimeMs) return false;
    unsold *= 1 - answerProbability(prospect, prospect.timeoutMs) * prospect.acceptRate;
    left -= Math.min(prospect.latency.p90Ms, prospect.timeoutMs);
  }
  return true;
}

/**
 * Expected revenue (cents) of posting in this order with `timeLeftMs` left. A post is sent when its
 * minimum time fits; it is answered when its latency is within its timeout and the time left; an
 * answer is an acceptance at its accept rate, which ends the sale with its value. A decline goes on
 * to the next post with the time the answer took; a post without an answer ends the sale unless its
 * buyer counts that as a decline. Time spent is taken at its expectation along the way on.
 */
export function expectedRevenue(order: readonly PostProspect[], timeLeftMs: number): number {
  return new Walk(order, timeLeftMs).inOrder(timeLeftMs);
}

/**
 * expectedRevenue of orders of `prospects` (indices into it) at any time left, for a search that weighs
 * many orders at many times: the prospects' log-normals are worked out once.
 */
export function revenueOfOrders(
  prospects: readonly PostProspect[],
): (order: readonly number[], timeLeftMs: number) => number {
  const walk = new Walk(prospects, 0);
  return (order, timeLeftMs) => walk.revenue(order, timeLeftMs);
}

/** Where a walk of the posts stands: revenue so far, the chance to get this far, the time left. */
interface WalkState {
  revenue: number;
  reach: number;
  left: number;
  /** Nothing after this point can bring revenue. */
  over: boolean;
}

/**
 * expectedRevenue over orders of one set of prospects, for searches that evaluate many orders: each
 * prospect's log-normal, and its answer within its own timeout (the common case), are computed once.
 */
class Walk {
  private readonly mu: number[];
  private readonly sigma: number[];
  /** finishProbability and expectedLatencyWithin at the prospect's timeout. */
  private readonly answeredInTimeout: number[];
  private readonly answerTimeInTimeout: number[];
  private readonly highestValueCents: number;
  private readonly leastMinimumTimeMs: number;
  /**
   * What answerWithin found: the chance of an answer, and its expected time. Written here rather than
   * returned: a number returned from a call the optimizer does not inline is a new heap object, one for
   * every step of the thousands of orders a search walks.
   */
  private readonly answer = new Float64Array(2);

  constructor(
    private readonly prospects: readonly PostProspect[],
    private readonly timeLeftMs: number,
  ) {
    const curves = prospects.map((prospect) => logNormal(prospect.latency));
    this.mu = curves.map((curve) => curve.mu);
    this.sigma = curves.map((curve) => curve.sigma);
    this.answeredInTimeout = prospects.map((prospect) => answerProbability(prospect, prospect.timeoutMs));
    this.answerTimeInTimeout = prospects.map((prospect) => expectedLatencyWithin(prospect.latency, prospect.timeoutMs));
    this.highestValueCents = Math.max(0, ...prospects.map((prospect) => prospect.valueCents));
    this.leastMinimumTimeMs = Math.min(...prospects.map((prospect) => prospect.minimumTimeMs));
  }

  /**
   * More than the posts after state can add: each accepted post ends the sale, so their chances of
   * acceptance sum to at most its reach (with a margin for rounding).
   */
  ceiling(state: WalkState): number {
    return state.reach * this.highestValueCents * (1 + 1e-9);
  }

  /**
   * The first position of a walk (given its states) from which no post changes anything: the walk is
   * over, or has less time left than any post needs to be sent.
   */
  spentFrom(states: readonly WalkState[]): number {
    const index = states.findIndex(
      (state) => state.over || state.reach <= 0 || state.left <= 0 || state.left < this.leastMinimumTimeMs,
    );
    return index < 0 ? states.length : index;
  }

  start(timeLeftMs = this.timeLeftMs): WalkState {
    return { revenue: 0, reach: 1, left: timeLeftMs, over: false };
  }

  revenue(order: readonly number[], timeLeftMs = this.timeLeftMs): number {
    const state = this.start(timeLeftMs);
    for (const index of order) if (!this.stepWithTime(state, index)) break;
    return state.revenue;
  }

  /** The revenue of the prospects in their own order, with `timeLeftMs` left. */
  inOrder(timeLeftMs: number): number {
    const state = this.start(timeLeftMs);
    for (let index = 0; index < this.prospects.length; index += 1) if (!this.stepWithTime(state, index)) break;
    return state.revenue;
  }

  /** step, or false once too little time is left for any post to be sent: none changes anything then. */
  private stepWithTime(state: WalkState, index: number): boolean {
    if (state.left <= 0 || state.left < this.leastMinimumTimeMs) return false;
    return this.step(state, index);
  }

  /** Posts prospect `index` next; false once nothing more can come of the walk. */
  step(state: WalkState, index: number): boolean {
    if (state.over || state.reach <= 0) {
      state.over = true;
      return false;
    }
    const prospect = this.prospects[index]!;
    const { left } = state;
    if (left <= 0 || left < prospect.minimumTimeMs) return true;
    const limit = Math.min(prospect.timeoutMs, left);
    const inTimeout = limit === prospect.timeoutMs;
    if (!inTimeout) this.answerWithin(index, limit);
    const answered = inTimeout ? this.answeredInTimeout[index]! : this.answer[0]!;
    const accepted = answered * prospect.acceptRate;
    state.revenue += state.reach * accepted * prospect.valueCents;
    const declined = answered - accepted;
    const goesOn = prospect.timeoutEndsSale ? declined : 1 - accepted;
    if (goesOn <= 0) {
      state.over = true;
      return false;
    }
    const answerTime = inTimeout ? this.answerTimeInTimeout[index]! : this.answer[1]!;
    const unanswered = prospect.timeoutEndsSale ? 0 : 1 - answered;
    state.left -= (declined * answerTime + unanswered * limit) / goesOn;
    state.reach *= goesOn;
    return true;
  }

  /**
   * finishProbability and expectedLatencyWithin, with the prospect's log-normal already known, into
   * `answer`.
   */
  private answerWithin(index: number, withinMs: number): void {
    const mu = this.mu[index]!;
    const sigma = this.sigma[index]!;
    const z = (Math.log(withinMs) - mu) / sigma;
    const mass = normalCdf(z);
    this.answer[0] = Math.min(mass, 1 - this.prospects[index]!.silentRate);
    this.answer[1] =
      mass < 1e-9 ? withinMs : Math.min(withinMs, (Math.exp(mu + (sigma * sigma) / 2) * normalCdf(z - sigma)) / mass);
  }
}

/** The chance that a post of the prospect is answered within `withinMs`: in its latency, unless it is never answered. */
export function answerProbability(prospect: PostProspect, withinMs: number): number {
  return Math.min(finishProbability(prospect.latency, withinMs), 1 - prospect.silentRate);
}

/** P(latency <= withinMs), latency log-normal through its median and 90th percentile. */
export function finishProbability(latency: LatencyProfile, withinMs: number): number {
  if (withinMs <= 0) return 0;
  const { mu, sigma } = logNormal(latency);
  return normalCdf((Math.log(withinMs) - mu) / sigma);
}

/** E[latency | latency <= withinMs] of the same log-normal; withinMs when that has no mass. */
export function expectedLatencyWithin(latency: LatencyProfile, withinMs: number): number {
  if (withinMs <= 0) return 0;
  const { mu, sigma } = logNormal(latency);
  const z = (Math.log(withinMs) - mu) / sigma;
  const mass = normalCdf(z);
  if (mass < 1e-9) return withinMs;
  return Math.min(withinMs, (Math.exp(mu + (sigma * sigma) / 2) * normalCdf(z - sigma)) / mass);
}

/**
 * From the best of three starting orders (price; expected value per post; expected value per
 * millisecond of expected time), repeatedly moves one offer to the place where the order pays best.
 * A move leaves the posts before it as they were, so each candidate is walked from the state the best
 * order reaches there.
 */
function localSearch(prospects: readonly PostProspect[], priceOrder: number[], walk: Walk): number[] {
  const worth = (index: number) => prospects[index]!.acceptRate * prospects[index]!.valueCents;
  const pace = (index: number) =>
    worth(index) / Math.max(1, Math.min(prospects[index]!.latency.p50Ms, prospects[index]!.timeoutMs));
  const starts = [
    priceOrder,
    priceOrder.toSorted((a, b) => worth(b) - worth(a)),
    priceOrder.toSorted((a, b) => pace(b) - pace(a)),
  ];
  let best = priceOrder;
  let bestRevenue = walk.revenue(priceOrder);
  for (const start of starts) {
    const candidate = walk.revenue(start);
    if (candidate > bestRevenue) [best, bestRevenue] = [start, candidate];
  }
  let prefixes = prefixStates(walk, best);
  let spent = walk.spentFrom(prefixes);
  // Every candidate is walked in this one state: thousands of them per post, each a copy otherwise.
  const scratch = walk.start();
  for (let round = 0; round < SEARCH_ROUNDS; round += 1) {
    let improved = false;
    for (let from = 0; from < best.length; from += 1) {
      for (let to = 0; to < best.length; to += 1) {
        // A move among posts the best order never gets to (out of time, or over) changes nothing.
        if (to === from || Math.min(from, to) >= spent) continue;
        const candidate = movedRevenue(walk, best, prefixes, from, to, bestRevenue, scratch);
        if (candidate > bestRevenue) {
          best = best.toSpliced(from, 1).toSpliced(to, 0, best[from]!);
          bestRevenue = candidate;
          prefixes = prefixStates(walk, best);
          spent = walk.spentFrom(prefixes);
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return best;
}

/** The walk's state before each position of order (and after the last). */
function prefixStates(walk: Walk, order: readonly number[]): WalkState[] {
  const state = walk.start();
  const states = [{ ...state }];
  for (const index of order) {
    walk.step(state, index);
    states.push({ ...state });
  }
  return states;
}

/**
 * The revenue of order with the offer at `from` moved to `to`, walked from the first position that changes;
 * `state` is overwritten.
 */
function movedRevenue(
  walk: Walk,
  order: readonly number[],
  prefixes: readonly WalkState[],
  from: number,
  to: number,
  toBeat: number,
  state: WalkState,
): number {
  const first = Math.min(from, to);
  const prefix = prefixes[first]!;
  state.revenue = prefix.revenue;
  state.reach = prefix.reach;
  state.left = prefix.left;
  state.over = prefix.over;
  for (let position = first; position < order.length; position += 1) {
    // The posts still to come can bring at most reach times the highest value: past that, it cannot win.
    if (state.revenue + walk.ceiling(state) <= toBeat) return state.revenue;
    if (!walk.step(state, order[sourceOf(position, from, to)]!)) break;
  }
  return state.revenue;
}

/** Which position of an order ends up at `position` once the offer at `from` is moved to `to`. */
function sourceOf(position: number, from: number, to: number): number {
  if (position === to) return from;
  if (from < to && position >= from && position < to) return position + 1;
  if (to < from && position > to && position <= from) return position - 1;
  return position;
}

interface LearnedLatency {
  p50Ms: number | undefined;
  p90Ms: number | undefined;
}

/**
 * The prospect of a post to a buyer with these learned figures. A buyer with no posts yet is taken to
 * answer as the tree's buyers do (`tree`), but never slower than half its timeout at the median and its
 * timeout at the 90th percentile, which is what it is taken to do when the tree has no posts either.
 */
export function prospectOf(
  figures: { acceptRate: number; silentRate: number } & LearnedLatency,
  post: { valueCents: number; timeoutMs: number; minimumTimeMs: number; timeoutEndsSale: boolean },
  tree: LearnedLatency = { p50Ms: undefined, p90Ms: undefined },
): PostProspect {
  const known = (latency: LearnedLatency): latency is LatencyProfile =>
    latency.p50Ms !== undefined && latency.p90Ms !== undefined;
  const latency = known(figures)
    ? { p50Ms: figures.p50Ms, p90Ms: figures.p90Ms }
    : known(tree)
      ? { p50Ms: Math.min(tree.p50Ms, post.timeoutMs / 2), p90Ms: Math.min(tree.p90Ms, post.timeoutMs) }
      : { p50Ms: post.timeoutMs / 2, p90Ms: post.timeoutMs };
  return { ...post, acceptRate: figures.acceptRate, silentRate: figures.silentRate, latency };
}
