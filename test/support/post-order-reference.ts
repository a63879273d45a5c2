// The post order's search as first written: every candidate order evaluated from its start, with the
// same test of time for all. The optimised search (post-order.ts) must choose exactly what this one does.
import { type LatencyProfile, type PostProspect, timeForAll } from '@leadflow/distribution/src/selling/post-order';

/** The order changes only for one that expects this much more revenue (relative): noise never reorders. */
const MIN_GAIN = 0.005;
/** Up to this many offers every order is tried; beyond, a local search from good starting orders. */
const EXHAUSTIVE_UP_TO = 5;
/** Rounds of the local search: each moves one offer to the place that pays best. */
const SEARCH_ROUNDS = 8;

/**
 * The order to post `prospects` in (indices into it, which is in price order): the price order when
 * walking it leaves time for every post, else the order of the highest expected revenue within
 * `timeLeftMs`, kept only when it beats the price order by at least MIN_GAIN.
 */
export function referencePlanPosts(prospects: readonly PostProspect[], timeLeftMs: number): number[] {
  const priceOrder = prospects.map((_, index) => index);
  if (prospects.length < 2 || timeForAll(prospects, timeLeftMs)) return priceOrder;
  const revenue = (order: readonly number[]) =>
    expectedRevenue(
      order.map((index) => prospects[index]!),
      timeLeftMs,
    );
  const best =
    prospects.length <= EXHAUSTIVE_UP_TO ? bestOfAll(priceOrder, revenue) : localSearch(prospects, priceOrder, revenue);
  const base = revenue(priceOrder);
  return revenue(best) > base * (1 + MIN_GAIN) ? best : priceOrder;
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

/** P(latency <= withinMs), latency log-normal through its median and 90th percentile. */
function finishProbability(latency: LatencyProfile, withinMs: number): number {
  if (withinMs <= 0) return 0;
  const { mu, sigma } = logNormal(latency);
  return normalCdf((Math.log(withinMs) - mu) / sigma);
}

/** E[latency | latency <= withinMs] of the same log-normal; withinMs when that has no mass. */
function expectedLatencyWithin(latency: LatencyProfile, withinMs: number): number {
  if (withinMs <= 0) return 0;
  const { mu, sigma } = logNormal(latency);
  const z = (Math.log(withinMs) - mu) / sigma;
  const mass = normalCdf(z);
  if (mass < 1e-9) return withinMs;
  return Math.min(withinMs, (Math.exp(mu + (sigma * sigma) / 2) * normalCdf(z - sigma)) / mass);
}

/** z of the 90th percentile of the standard normal. */
const Z90 = 1.2815515655446004;

function logNormal(latency: LatencyProfile): { mu: number; sigma: number } {
  const p50 = Math.max(1, latency.p50Ms);
  const p90 = Math.max(p50 * 1.05, latency.p90Ms);
  return { mu: Math.log(p50), sigma: (Math.log(p90) - Math.log(p50)) / Z90 };
}

/** Standard normal CDF (Abramowitz and Stegun 7.1.26 for erf, error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
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
