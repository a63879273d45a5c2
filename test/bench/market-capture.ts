import { bestSale, parseEndpoints, plannedSale } from '@leadflow/simulator';
import type { Answer } from './answer-tally.js';
import { buyerNameOf, MARKET_MIN_PRICE_CENTS, MARKET_SEED, type Market, marketEndpoints } from './market.js';
import type { StoredLead } from './market-figures.js';
import { LOSS_CAUSES, type LossCause, lossCause } from './market-losses.js';
import { round } from './stats.js';

/** One lead of a run: what buyers paid for it and the best sale the market held for it, in cents. */
export interface LeadTake {
  revenueCents: number;
  bestCents: number;
  /** What the best plan that cannot know the lenders' decisions sold it for (plannedSaleOf). */
  plannedCents: number;
  /** Why it brought less than the best; undefined when it did not. */
  loss: LossCause | undefined;
  deadlineSkips: number;
  lateBids: number;
  /** Still held once every post's own timeout had passed (read after the service stopped). */
  held: boolean;
  /** What a post's late answer booked: sold after the publisher was answered that it was not. */
  lateSaleCents: number;
}

/** How much of what the market held for its leads one run took. */
export interface Capture {
  /** Leads of the measured run but its opening burst, found in the service's database. */
  leads: number;
  /** Dollars per lead: what buyers paid; what the best sale of each lead would have brought. */
  revenuePerLead: number;
  bestPerLead: number;
  /** Revenue over the best possible, 0..1. */
  share: number;
  /** Dollars per lead of the planned sales, and revenue over them. */
  plannedPerLead: number;
  shareOfPlanned: number;
  /** Dollars per lead short of the best, by cause. */
  lossPerLead: Record<LossCause, number>;
  /** Buyers skipped for lack of time, and bids that came after the ping window, per lead. */
  deadlineSkipsPerLead: number;
  lateBidsPerLead: number;
  /** Leads still held once every post's own timeout had passed, per 1,000 (issue bar: at most 1). */
  heldPer1000: number;
  /** Dollars per lead booked by posts' late answers (in revenuePerLead too), and the leads they sold. */
  lateSaleRevenuePerLead: number;
  lateSales: number;
}

/** Each market's endpoints, parsed once. */
const parsed = new Map<Market, ReturnType<typeof parseEndpoints>>();

function endpointsOf(market: Market): ReturnType<typeof parseEndpoints> {
  let endpoints = parsed.get(market);
  if (!endpoints) {
    endpoints = parseEndpoints(marketEndpoints(market));
    parsed.set(market, endpoints);
  }
  return endpoints;
}

/**
 * The best sale of a lead within budgetMs, as the simulator computes it from its own decisions for that
 * lead (lead-draws.ts: each lender's bid, whether it would accept, its latencies and faults): the same
 * seed and lead key as the simulator process of the run, so the same answers.
 */
export function bestSaleOf(
  market: Market,
  clickid: string,
  budgetMs: number,
): { buyer: string; priceCents: number } | undefined {
  const best = bestSale(endpointsOf(market), MARKET_SEED, clickid, { budgetMs, minPriceCents: MARKET_MIN_PRICE_CENTS });
  return best && { buyer: buyerNameOf(market, best.path), priceCents: best.priceCents };
}

/**
 * The sale of a lead by the best plan of a router that knows every bid, latency and fault in advance but
 * not the lenders' decisions (the simulator's planned-sale.ts): the bound for a router posting one lender
 * at a time, which the best sale is not.
 */
export function plannedSaleOf(
  market: Market,
  clickid: string,
  budgetMs: number,
): { buyer: string; priceCents: number } | undefined {
  const planned = plannedSale(endpointsOf(market), MARKET_SEED, clickid, {
    budgetMs,
    minPriceCents: MARKET_MIN_PRICE_CENTS,
  });
  return planned && { buyer: buyerNameOf(market, planned.path), priceCents: planned.priceCents };
}

/** Each steady lead of a run by its clickid, with what it brought, the best it could have, and why not. */
export function leadTakes(
  market: Market,
  measured: readonly Answer[],
  stored: ReadonlyMap<string, StoredLead>,
  budgetMs: number,
): Map<string, LeadTake> {
  const takes = new Map<string, LeadTake>();
  for (const answer of measured) {
    const lead = stored.get(answer.leadId);
    if (!lead || answer.opening) continue;
    const best = bestSaleOf(market, lead.clickid, budgetMs);
    const bestCents = best?.priceCents ?? 0;
    takes.set(lead.clickid, {
      revenueCents: lead.chargeCents,
      bestCents,
      plannedCents: plannedSaleOf(market, lead.clickid, budgetMs)?.priceCents ?? 0,
      loss: best && lead.chargeCents < bestCents ? lossCause(lead, best.buyer) : undefined,
      deadlineSkips: lead.skips.filter((skip) => skip.reason === 'deadline').length,
      lateBids: lead.calls.filter((call) => call.late).length,
      held: lead.status === 'unconfirmed',
      lateSaleCents: answer.status === 'sold' ? 0 : lead.chargeCents,
    });
  }
  return takes;
}

export function captureOf(takes: ReadonlyMap<string, LeadTake>): Capture {
  let revenueCents = 0;
  let bestCents = 0;
  let plannedCents = 0;
  let deadlineSkips = 0;
  let lateBids = 0;
  let held = 0;
  let lateSaleCents = 0;
  let lateSales = 0;
  const lostCents = Object.fromEntries(LOSS_CAUSES.map((cause) => [cause, 0])) as Record<LossCause, number>;
  for (const take of takes.values()) {
    revenueCents += take.revenueCents;
    bestCents += take.bestCents;
    plannedCents += take.plannedCents;
    deadlineSkips += take.deadlineSkips;
    lateBids += take.lateBids;
    if (take.held) held += 1;
    lateSaleCents += take.lateSaleCents;
    if (take.lateSaleCents > 0) lateSales += 1;
    if (take.loss) lostCents[take.loss] += take.bestCents - take.revenueCents;
  }
  const leads = takes.size;
  const perLead = (value: number) => (leads === 0 ? 0 : round(value / leads));
  return {
    leads,
    revenuePerLead: perLead(revenueCents / 100),
    bestPerLead: perLead(bestCents / 100),
    share: shareOf(revenueCents, bestCents),
    plannedPerLead: perLead(plannedCents / 100),
    shareOfPlanned: shareOf(revenueCents, plannedCents),
    lossPerLead: Object.fromEntries(LOSS_CAUSES.map((cause) => [cause, perLead(lostCents[cause] / 100)])) as Record<
      LossCause,
      number
    >,
    deadlineSkipsPerLead: perLead(deadlineSkips),
    lateBidsPerLead: perLead(lateBids),
    heldPer1000: perLead(held * 1000),
    lateSaleRevenuePerLead: perLead(lateSaleCents / 100),
    lateSales,
  };
}

/** Two runs on the leads both measured: revenue per lead of each, and the first's over the second's. */
export interface PairedRevenue {
  leads: number;
  revenuePerLead: number;
  otherRevenuePerLead: number;
  /** null when the second run earned nothing. */
  ratio: number | null;
}

export function pairedRevenue(
  takes: ReadonlyMap<string, LeadTake>,
  other: ReadonlyMap<string, LeadTake>,
): PairedRevenue {
  let leads = 0;
  let cents = 0;
  let otherCents = 0;
  for (const [clickid, take] of takes) {
    const twin = other.get(clickid);
    if (!twin) continue;
    leads += 1;
    cents += take.revenueCents;
    otherCents += twin.revenueCents;
  }
  const perLead = (value: number) => (leads === 0 ? 0 : round(value / 100 / leads));
  return {
    leads,
    revenuePerLead: perLead(cents),
    otherRevenuePerLead: perLead(otherCents),
    ratio: otherCents === 0 ? null : shareOf(cents, otherCents),
  };
}

/** part / whole to four places; 0 when the whole is. */
function shareOf(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}
