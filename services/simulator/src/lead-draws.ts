import type { Random } from '@leadflow/core/seeded-random';
import type { Endpoint, FaultKind } from './config.js';
import { sampleCents, sampleMs } from './distributions.js';
import { pickFault } from './faults.js';
import { endpointRandom } from './random.js';

/*
 * Lead-keyed draws: with a `leadKey`, every request's draws come from the seed, the endpoint and the
 * lead (the value of that body field), not from the endpoint's running stream. A lead's answer at each
 * endpoint is then fixed before anyone asks, whatever the order of requests, whether it is asked at
 * all, and in every run with the same seed: so the simulator can tell the best sale a router that knew
 * every answer could have made, and two runs on the same leads meet the same market.
 */

/** The stream of one lead at one endpoint. */
export function leadRandom(seed: number, path: string, lead: string): Random {
  return endpointRandom(seed, `${path}\u0000${lead}`);
}

/** What an endpoint does with one lead, drawn in the order a request meets the draws (handle-endpoint.ts, decide.ts). */
export interface DrawnCall {
  latencyMs: number;
  fault: FaultKind | undefined;
  /** Bids (ping) or accepts (posts); false under a fault. */
  accepts: boolean;
  /** The bid (ping) or price (direct post) in cents when it accepts; a post's price is its ping's bid. */
  amountCents: number | undefined;
}

export function drawCall(endpoint: Endpoint, random: Random): DrawnCall {
  const latencyMs = sampleMs(endpoint.latencyMs, random);
  const fault = pickFault(endpoint.errors, random);
  if (fault) return { latencyMs, fault, accepts: false, amountCents: undefined };
  const accepts = random() < endpoint.acceptRate;
  const amountCents =
    !accepts || endpoint.kind === 'post'
      ? undefined
      : sampleCents(endpoint.kind === 'ping' ? endpoint.bid : endpoint.price, random);
  return { latencyMs, fault, accepts, amountCents };
}

export interface BestSaleTerms {
  /** The time a router has for the lead: a sale counts when its calls, one after the other, fit in it. */
  budgetMs: number;
  /** The least price that counts as a sale (the floor, at the buyer's side). */
  minPriceCents: number;
}

export interface BestSale {
  /** The post endpoint of the sale. */
  path: string;
  priceCents: number;
  /** When its post's answer came, ms into the sale: for the best sale, its ping's latency (0 for a direct post) plus its post's. */
  durationMs: number;
}

/** A post endpoint with what it does with a lead: its post's draws and, for a ping-post lender, its ping's. */
export interface DrawnLender {
  endpoint: Endpoint;
  post: DrawnCall;
  pinged: DrawnCall | undefined;
}

/** Every post endpoint (direct or ping-post) with the lead's draws at it and at its ping. */
export function drawLenders(endpoints: readonly Endpoint[], seed: number, lead: string): DrawnLender[] {
  const byPath = new Map(endpoints.map((endpoint) => [endpoint.path, endpoint]));
  const draw = (endpoint: Endpoint) => drawCall(endpoint, leadRandom(seed, endpoint.path, lead));
  return endpoints
    .filter((endpoint) => endpoint.kind !== 'ping')
    .map((endpoint) => {
      const ping = endpoint.kind === 'post' ? byPath.get(endpoint.ping) : undefined;
      return { endpoint, post: draw(endpoint), pinged: ping && draw(ping) };
    });
}

/**
 * The best sale of a lead a router that knew every answer could have made: the highest price among the
 * post endpoints whose ping bids and whose post accepts (or direct posts that accept), without a fault,
 * with the ping's and the post's latency together within the budget. Undefined when nothing sells.
 * Credentials, duplicate checks and the ping's time to live are left out: the bench's market has none.
 */
export function bestSale(
  endpoints: readonly Endpoint[],
  seed: number,
  lead: string,
  terms: BestSaleTerms,
): BestSale | undefined {
  let best: BestSale | undefined;
  for (const { endpoint, post, pinged } of drawLenders(endpoints, seed, lead)) {
    const priceCents = pinged ? pinged.amountCents : post.amountCents;
    const durationMs = (pinged?.latencyMs ?? 0) + post.latencyMs;
    const sells = post.accepts && (pinged?.accepts ?? true) && priceCents !== undefined;
    if (!sells || durationMs > terms.budgetMs || priceCents < terms.minPriceCents) continue;
    if (!best || priceCents > best.priceCents) best = { path: endpoint.path, priceCents, durationMs };
  }
  return best;
}
