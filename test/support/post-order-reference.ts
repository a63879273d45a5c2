// The post order's search as first written: every candidate order evaluated from its start, with the
// same latency curves, test of time for all and scenarios of answer times. The optimised searches (post-order.ts,
// post-scenarios.ts) must choose exactly what this one does.
import {
  expectedLatencyWithin,
  finishProbability,
  type PostProspect,
  timeForAll,
} from '@leadflow/distribution/src/selling/post-order';
import { LatencyScenarios } from '@leadflow/distribution/src/selling/post-scenarios';

/** The order changes only for one that expects this much more revenue (relative): noise never reorders. */
const MIN_GAIN = 0.005;
/** Up to this many offers every order is tried; beyond, a local search from good starting orders. */
const EXHAUSTIVE_UP_TO = 5;
/** Rounds of the local search: each moves one offer to the place that pays best. */
const SEARCH_ROUNDS = 8;

/**
 * The order to post `prospects` in (indices into it, which is in price order): the price order when
 * walking it leaves time for every post, else the order of the highest expected revenue within
 * `timeLeftMs` over the scenarios of the answer times, kept only when it beats the price order by at
 * least MIN_GAIN. Beyond EXHAUSTIVE_UP_TO offers, the local search weighs orders by the walk that takes
 * each answer at its expected time.
 */
export function referencePlanPosts(prospects: readonly PostProspect[], timeLeftMs: number): number[] {
  const priceOrder = prospects.map((_, index) => index);
  if (prospects.length < 2 || timeForAll(prospects, timeLeftMs)) return priceOrder;
  const scenarios = new LatencyScenarios(prospects);
  const revenue = (order: readonly number[]) => scenarios.revenue(order, timeLeftMs);
  const expected = (order: readonly number[]) =>
    expectedRevenue(
      order.map((index) => prospects[index]!),
      timeLeftMs,
    );
  const best =
    prospects.length <= EXHAUSTIVE_UP_TO
      ? bestOfAll(priceOrder, revenue)
      : localSearch(prospects, priceOrder, expected);
  return revenue(best) > revenue(priceOrder) * (1 + MIN_GAIN) ? best : priceOrder;
}

/**
 * Expected revenue (cents) of posting in this order with `timeLeftMs` left. A post is sent when its
 * minimum time fits; it is answered when its latency is within its timeout and the time left; an
 * answer is an acceptance at its accept rate, which ends the sale with its value. A decline goes on
 * to the next post with the time the answer took; a post without an answer ends the sale unless its
 * buyer counts that as a decline. Time spent is taken at its expectation along the way on.
 */
function expectedRevenue(order: readonly PostProspect[], timeLeftMs: number): number {
  let revenue = 0;
  let reach = 1;
  let left = timeLeftMs;
  for (const prospect of order) {
    if (reach <= 0) break;
    if (left <= 0 || left < prospect.minimumTimeMs) continue;
    const limit = Math.min(prospect.timeoutMs, left);
    // A post of a buyer that hangs now and then is answered at most when it does not hang.
    const answered = Math.min(finishProbability(prospect.latency, limit), 1 - prospect.silentRate);
    const accepted = answered * prospect.acceptRate;
    revenue += reach * accepted * prospect.valueCents;
    const declined = answered - accepted;
    const answerTime = expectedLatencyWithin(prospect.latency, limit);
    const goesOn = prospect.timeoutEndsSale ? declined : 1 - accepted;
    if (goesOn <= 0) break;
    const unanswered = prospect.timeoutEndsSale ? 0 : 1 - answered;
    left -= (declined * answerTime + unanswered * limit) / goesOn;
    reach *= goesOn;
  }
  return revenue;
}

/** Every order of the offers; the first best found wins, and the price order is tried first. */
function bestOfAll(priceOrder: number[], revenue: (order: readonly number[]) => number): number[] {
  let best = priceOrder;
  let bestRevenue = revenue(priceOrder);
  const visit = (prefix: number[], rest: number[]) => {
    if (rest.length === 0) {
      const candidate = revenue(prefix);
      if (candidate > bestRevenue) [best, bestRevenue] = [prefix, candidate];
      return;
    }
    for (const [position, index] of rest.entries()) visit([...prefix, index], rest.toSpliced(position, 1));
  };
  visit([], priceOrder);
  return best;
}

/**
 * From the best of three starting orders (price; expected value per post; expected value per
 * millisecond of expected time), repeatedly moves one offer to the place where the order pays best.
 */
function localSearch(
  prospects: readonly PostProspect[],
  priceOrder: number[],
  revenue: (order: readonly number[]) => number,
): number[] {
  const worth = (index: number) => prospects[index]!.acceptRate * prospects[index]!.valueCents;
  const pace = (index: number) =>
    worth(index) / Math.max(1, Math.min(prospects[index]!.latency.p50Ms, prospects[index]!.timeoutMs));
  const starts = [
    priceOrder,
    priceOrder.toSorted((a, b) => worth(b) - worth(a)),
    priceOrder.toSorted((a, b) => pace(b) - pace(a)),
  ];
  let best = priceOrder;
  let bestRevenue = revenue(priceOrder);
  for (const start of starts) {
    const candidate = revenue(start);
    if (candidate > bestRevenue) [best, bestRevenue] = [start, candidate];
  }
  for (let round = 0; round < SEARCH_ROUNDS; round += 1) {
    let improved = false;
    for (let from = 0; from < best.length; from += 1) {
      for (let to = 0; to < best.length; to += 1) {
        if (to === from) continue;
        const moved = best.toSpliced(from, 1).toSpliced(to, 0, best[from]!);
        const candidate = revenue(moved);
        if (candidate > bestRevenue) {
          [best, bestRevenue] = [moved, candidate];
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return best;
}
