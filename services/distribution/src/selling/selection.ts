import type { Buyer } from '../buyers/buyer.js';
import { evaluateFilter } from '../buyers/rules/filters.js';
import type { LeadFacts } from '../buyers/rules/lead-facts.js';
import { isOpen } from '../buyers/rules/schedule.js';
import type { SkipReason } from './attempt-log.js';
import type { CapPeriod } from './cap-periods.js';

/*
 * The selling engine's decisions, as plain functions of facts: which buyers may get a lead and in
 * which order offers are posted. Everything they need is read beforehand (storage, circuit breakers);
 * nothing here waits, writes or calls.
 */

export interface CapUsage {
  leads: number;
  spendCents: number;
}

/** What is known of one buyer for one lead before anything is sent. */
export interface BuyerStanding {
  buyer: Buyer;
  facts: LeadFacts;
  periods: readonly CapPeriod[];
  /** Known before any call for a fixed or rule price; a bid buyer's comes with its ping. */
  chargeCents: number | undefined;
  payoutCents: number | undefined;
  /** What its cap counters hold, by period key. */
  usage: (period: string) => CapUsage | undefined;
  /** The lead was posted to it before (a sale taken over after a crash). */
  posted: boolean;
  /** It holds this person already, by its duplicate policy. */
  duplicate: boolean;
  circuitOpen: boolean;
}

/** Why the buyer may not get the lead, in the order an operator reads them; undefined when it may. */
export function skipReason(standing: BuyerStanding, priceFloorCents: number, now: Date): SkipReason | undefined {
  const { definition } = standing.buyer;
  if (standing.posted) return 'posted';
  if (!isOpen(definition.schedule, now)) return 'closed';
  if (definition.filters && !evaluateFilter(definition.filters, standing.facts)) return 'filtered';
  if (isCapped(standing.periods, standing.usage, standing.chargeCents)) return 'capped';
  if (standing.duplicate) return 'duplicate';
  if (standing.payoutCents !== undefined && standing.payoutCents < priceFloorCents) return 'floor';
  if (standing.circuitOpen) return 'circuit_open';
  return undefined;
}

/** True when one more lead at this price would pass a cap of one of the periods. */
export function isCapped(
  periods: readonly CapPeriod[],
  usage: (period: string) => CapUsage | undefined,
  chargeCents: number | undefined,
): boolean {
  return periods.some((period) => {
    const used = usage(period.period);
    return (
      used !== undefined &&
      ((period.maxLeads !== undefined && used.leads >= period.maxLeads) ||
        (period.maxSpendCents !== undefined && used.spendCents + (chargeCents ?? 0) > period.maxSpendCents))
    );
  });
}

export interface Offer {
  buyer: Buyer;
  chargeCents: number | undefined;
}

/**
 * Best price first; equal prices by tier (offers of several tiers meet in one auction), then priority,
 * then a draw weighted by the buyer's weight (`random` in [0, 1) per offer: the weighted rotation among
 * equals). Unpriced direct posts (price in the answer) last.
 */
export function rankOffers<T extends Offer>(offers: readonly T[], random: () => number): T[] {
  const draw = new Map(offers.map((offer) => [offer, random() ** (1 / offer.buyer.definition.weight)]));
  return [...offers].sort(
    (a, b) =>
      (b.chargeCents ?? -1) - (a.chargeCents ?? -1) ||
      a.buyer.definition.tier - b.buyer.definition.tier ||
      a.buyer.definition.priority - b.buyer.definition.priority ||
      draw.get(b)! - draw.get(a)!,
  );
}

/** Offers grouped by tier, lowest tier first. */
export function byTier<T extends Offer>(offers: readonly T[]): T[][] {
  const tiers = new Map<number, T[]>();
  for (const offer of offers) {
    const tier = tiers.get(offer.buyer.definition.tier) ?? [];
    tier.push(offer);
    tiers.set(offer.buyer.definition.tier, tier);
  }
  return [...tiers.entries()].sort(([a], [b]) => a - b).map(([, tier]) => tier);
}

/** Offers grouped by tier, the tier with the best priced offer first; equal best prices by tier. */
export function byPriceGroup<T extends Offer>(offers: readonly T[]): T[][] {
  const best = (group: readonly T[]) => Math.max(...group.map((offer) => offer.chargeCents ?? -1));
  return byTier(offers)
    .map((group, rank) => ({ group, rank, best: best(group) }))
    .sort((a, b) => b.best - a.best || a.rank - b.rank)
    .map(({ group }) => group);
}
