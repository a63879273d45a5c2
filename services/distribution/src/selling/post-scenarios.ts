import { seededRandom } from '@leadflow/core/seeded-random';
import { logNormal, normalQuantile } from './latency-curve.js';
import type { PostProspect } from './post-order.js';

/**
 * The expected revenue of post orders over joint draws of the posts' answer times, for the choice of the
 * next post when time is short. A walk that takes each answer at its expected time counts a post that
 * fits on average as sent, though on half the paths it is not; and once a post is sent on some paths and
 * not on others, the time left has two clusters that no single figure holds. Here each of SCENARIOS
 * scenarios fixes every post's answer time, so whether a post is sent, and what is left after it, is
 * known on each path; acceptance is still counted at its rate.
 *
 * The draws are stratified: a prospect's answer times are its latency's quantiles at evenly spaced
 * levels, paired with the other prospects' in an order of its own (a Latin hypercube), and the same for
 * every plan, so two plans of one sale are weighed on the same paths and the choice is reproducible.
 */
export const SCENARIOS = 64;

export class LatencyScenarios {
  /** Per prospect, its answer time in each scenario (Infinity: it never answers), drawn when first posted. */
  private readonly answerMs: (Float64Array | undefined)[];
  /** Per depth of an order: what is left, and the chance to be still unsold, in each scenario. */
  private readonly left: Float64Array[] = [];
  private readonly reach: Float64Array[] = [];

  constructor(private readonly prospects: readonly PostProspect[]) {
    this.answerMs = new Array(prospects.length);
  }

  /**
   * Expected revenue (cents) of posting in this order with `timeLeftMs` left. On each path a post is
   * sent when its minimum time fits, and answered when its answer time is within its timeout and the
   * time left; an answer is an acceptance at its accept rate, which ends the sale with its value; a
   * decline hands the rest of the time to the next post. A post without an answer ends the sale on
   * that path, unless its buyer counts that as a decline (it then takes all the time it was given).
   */
  revenue(order: readonly number[], timeLeftMs: number): number {
    this.start(timeLeftMs);
    let revenue = 0;
    for (const [depth, index] of order.entries()) {
      revenue += this.post(depth, index);
      if (this.over(depth + 1)) break;
    }
    return revenue;
  }

  /**
   * The order of the highest expected revenue among every order of the prospects, trying them as their
   * permutations of the price order come (the price order first); the first best found wins. Orders
   * sharing a beginning share its walk.
   */
  bestOrder(timeLeftMs: number): number[] {
    const count = this.prospects.length;
    const order: number[] = [];
    const used = new Array<boolean>(count).fill(false);
    let best: number[] = [];
    let bestRevenue = Number.NEGATIVE_INFINITY;
    const visit = (revenue: number) => {
      const depth = order.length;
      if (depth === count) {
        if (revenue > bestRevenue) [best, bestRevenue] = [[...order], revenue];
        return;
      }
      for (let index = 0; index < count; index += 1) {
        if (used[index]) continue;
        used[index] = true;
        order.push(index);
        visit(revenue + this.post(depth, index));
        order.pop();
        used[index] = false;
      }
    };
    this.start(timeLeftMs);
    visit(0);
    return best;
  }

  private start(timeLeftMs: number): void {
    this.paths(0);
    this.left[0]!.fill(timeLeftMs);
    this.reach[0]!.fill(1);
  }

  /** The paths at `depth`, made the first time an order gets there. */
  private paths(depth: number): void {
    while (this.left.length <= depth) {
      this.left.push(new Float64Array(SCENARIOS));
      this.reach.push(new Float64Array(SCENARIOS));
    }
  }

  /** True when no path at `depth` can still sell: each is sold, ended or out of time. */
  private over(depth: number): boolean {
    const left = this.left[depth]!;
    const reach = this.reach[depth]!;
    for (let path = 0; path < SCENARIOS; path += 1) if (reach[path]! > 0 && left[path]! > 0) return false;
    return true;
  }

  /** Posts prospect `index` at `depth` of an order, from the paths there into those of the next depth. */
  private post(depth: number, index: number): number {
    const prospect = this.prospects[index]!;
    this.answerMs[index] ??= answerTimes(prospect, pairing(index));
    const answerMs = this.answerMs[index];
    this.paths(depth + 1);
    const left = this.left[depth]!;
    const reach = this.reach[depth]!;
    const nextLeft = this.left[depth + 1]!;
    const nextReach = this.reach[depth + 1]!;
    const { acceptRate, minimumTimeMs, timeoutMs, timeoutEndsSale } = prospect;
    let accepted = 0;
    for (let path = 0; path < SCENARIOS; path += 1) {
      const pathLeft = left[path]!;
      const pathReach = reach[path]!;
      nextLeft[path] = pathLeft;
      nextReach[path] = pathReach;
      if (pathReach <= 0 || pathLeft <= 0 || pathLeft < minimumTimeMs) continue;
      const limit = Math.min(timeoutMs, pathLeft);
      const answer = answerMs[path]!;
      if (answer <= limit) {
        accepted += pathReach;
        nextReach[path] = pathReach * (1 - acceptRate);
        nextLeft[path] = pathLeft - answer;
      } else if (timeoutEndsSale) {
        nextReach[path] = 0;
      } else {
        nextLeft[path] = pathLeft - limit;
      }
    }
    return (accepted * acceptRate * prospect.valueCents) / SCENARIOS;
  }
}

/**
 * A prospect's answer times at the levels `(pairing[path] + 0.5) / SCENARIOS`: past one minus its silent
 * share it hangs; below, the level is spread over its latency's log-normal (through p50 and p90).
 */
function answerTimes(prospect: PostProspect, levels: readonly number[]): Float64Array {
  const { mu, sigma } = logNormal(prospect.latency);
  const answered = 1 - prospect.silentRate;
  const times = new Float64Array(SCENARIOS);
  for (let path = 0; path < SCENARIOS; path += 1) {
    const level = (levels[path]! + 0.5) / SCENARIOS;
    times[path] = level > answered ? Number.POSITIVE_INFINITY : Math.exp(mu + sigma * normalQuantile(level / answered));
  }
  return times;
}

const pairings: number[][] = [];

/** The fixed order in which the prospect at `index` pairs its levels with the others': a seeded shuffle. */
function pairing(index: number): readonly number[] {
  while (pairings.length <= index) {
    const random = seededRandom(7919 * (pairings.length + 1));
    const levels = Array.from({ length: SCENARIOS }, (_, level) => level);
    // The first prospect keeps its levels in order: only the pairing among prospects matters.
    if (pairings.length > 0) {
      for (let last = SCENARIOS - 1; last > 0; last -= 1) {
        const other = Math.floor(random() * (last + 1));
        [levels[last], levels[other]] = [levels[other]!, levels[last]!];
      }
    }
    pairings.push(levels);
  }
  return pairings[index]!;
}
