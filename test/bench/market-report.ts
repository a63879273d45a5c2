import type { Capture } from './market-capture.js';
import type { MarketCapture } from './market-scenario.js';

/** The bar of the market: at the publishers' budget, this share of the best possible, and above the waterfall. */
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
    `${capture.deadlineSkipsPerLead} buyers skipped for time, ${capture.lateBidsPerLead} late bids\n` +
    `             lost per lead: ${losses || 'nothing'}`
  );
}

/** The market's take against the best sale of each lead, under its figures. */
export function describeCapture({
  budgetMs,
  longBudgetMs,
  routed,
  waterfall,
  long,
  overWaterfall,
}: MarketCapture): string {
  return [
    captureLine('routed', budgetMs, routed),
    captureLine('waterfall', budgetMs, waterfall),
    captureLine('routed', longBudgetMs, long),
    `  routed over waterfall on the ${overWaterfall.leads} leads both measured: ` +
      `$${overWaterfall.revenuePerLead} against $${overWaterfall.otherRevenuePerLead} per lead (x${overWaterfall.ratio})`,
  ].join('\n');
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
  };
}

/** The capture's figures for the closing JSON line. */
export function captureFigures({
  budgetMs,
  longBudgetMs,
  routed,
  waterfall,
  long,
  overWaterfall,
}: MarketCapture): Record<string, unknown> {
  return {
    budget_ms: budgetMs,
    routed: captureJson(routed),
    waterfall: captureJson(waterfall),
    long_budget_ms: longBudgetMs,
    long: captureJson(long),
    over_waterfall: {
      leads: overWaterfall.leads,
      revenue_per_lead: overWaterfall.revenuePerLead,
      waterfall_revenue_per_lead: overWaterfall.otherRevenuePerLead,
      ratio: overWaterfall.ratio,
    },
    bar: {
      share_of_best_ok: routed.leads === 0 ? null : routed.share >= SHARE_OF_BEST_MIN,
      above_waterfall_ok: overWaterfall.leads === 0 ? null : overWaterfall.ratio > 1,
    },
  };
}
