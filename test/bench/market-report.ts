import type { Capture } from './market-capture.js';
import type { MarketCapture } from './market-scenario.js';

/** The bar of each market and budget: this share of the best possible where the waterfall reaches it. */
const SHARE_OF_BEST_MIN = 0.98;

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function captureLine(title: string, budgetMs: number, capture: Capture): string {
  const losses = Object.entries(capture.lossPerLead)
    .filter(([, dollars]) => dollars > 0)
    .map(([cause, dollars]) => `${cause} $${dollars}`)
    .join(', ');
  return (
    `  ${title.padEnd(10)} ${budgetMs / 1000} s: revenue $${capture.revenuePerLead} per lead of a best possible ` +
    `$${capture.bestPerLead} (${percent(capture.share)}), of the planned $${capture.plannedPerLead} ` +
    `(${percent(capture.shareOfPlanned)}) over ${capture.leads} leads; per lead ` +
    `${capture.deadlineSkipsPerLead} buyers skipped for time, ${capture.lateBidsPerLead} late bids; ` +
    `held at the end ${capture.heldPer1000} per 1,000, sold by late answers ${capture.lateSales} ` +
    `($${capture.lateSaleRevenuePerLead} per lead)\n` +
    `             lost per lead: ${losses || 'nothing'}`
  );
}

/** Each market's take against the best sale of each lead, budget by budget, routed and by the waterfall. */
export function describeCaptures(captures: readonly MarketCapture[]): string {
  return captures
    .flatMap(({ market, budgets }) => [
      `  market ${market}:`,
      ...budgets.flatMap(({ budgetMs, routed, waterfall, overWaterfall }) => [
        captureLine('routed', budgetMs, routed),
        captureLine('waterfall', budgetMs, waterfall),
        `  routed over waterfall at ${budgetMs / 1000} s on the ${overWaterfall.leads} leads both measured: ` +
          `$${overWaterfall.revenuePerLead} against $${overWaterfall.otherRevenuePerLead} per lead (x${overWaterfall.ratio ?? '-'})`,
      ]),
    ])
    .join('\n');
}

function captureJson(capture: Capture): Record<string, unknown> {
  return {
    leads: capture.leads,
    revenue_per_lead: capture.revenuePerLead,
    best_per_lead: capture.bestPerLead,
    share_of_best: capture.share,
    planned_per_lead: capture.plannedPerLead,
    share_of_planned: capture.shareOfPlanned,
    loss_per_lead: capture.lossPerLead,
    deadline_skips_per_lead: capture.deadlineSkipsPerLead,
    late_bids_per_lead: capture.lateBidsPerLead,
    held_per_1000: capture.heldPer1000,
    late_sales: capture.lateSales,
    late_sale_revenue_per_lead: capture.lateSaleRevenuePerLead,
  };
}

/**
 * The captures' figures for the closing JSON line, by market then budget. The bar: routed at least the
 * waterfall on the same leads, and SHARE_OF_BEST_MIN of the best possible where the waterfall reaches it.
 */
export function captureFigures(captures: readonly MarketCapture[]): Record<string, unknown> {
  return Object.fromEntries(
    captures.map(({ market, budgets }) => [
      market,
      Object.fromEntries(
        budgets.map(({ budgetMs, routed, waterfall, overWaterfall }) => [
          `${budgetMs}_ms`,
          {
            routed: captureJson(routed),
            waterfall: captureJson(waterfall),
            over_waterfall: {
              leads: overWaterfall.leads,
              revenue_per_lead: overWaterfall.revenuePerLead,
              waterfall_revenue_per_lead: overWaterfall.otherRevenuePerLead,
              ratio: overWaterfall.ratio,
            },
            bar: {
              above_waterfall_ok:
                overWaterfall.leads === 0 ? null : overWaterfall.revenuePerLead >= overWaterfall.otherRevenuePerLead,
              share_of_best_ok:
                routed.leads === 0 || waterfall.share < SHARE_OF_BEST_MIN ? null : routed.share >= SHARE_OF_BEST_MIN,
            },
          },
        ]),
      ),
    ]),
  );
}
