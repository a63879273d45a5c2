import { cpuMsPerLead, cpuRatio, fanoutCallCostRatio, fanoutCost, ownPeakRssMb } from './cost-figures.js';
import type { FanoutResult } from './fanout-scenario.js';
import type { LoadErrors } from './load.js';
import { MARKETS, POST_TIMEOUT_MS, SELL_DEADLINE_MS } from './market.js';
import { captureFigures, describeCaptures } from './market-report.js';
import type { MarketResult } from './market-scenario.js';
import type { ScenarioResult } from './scenario.js';
import type { StageFigures } from './service-stages.js';

/** The bar at half load: leadflow's own overhead p99, and processingTime p99 over the buyer wait p99. */
const OVERHEAD_P99_MAX_MS = 10;
const PROCESSING_OVER_WAIT_P99_MAX_MS = 10;

/** The scenarios run on one store (the embedded SQLite or MySQL). */
export interface StoreResults {
  floor: ScenarioResult | undefined;
  full: ScenarioResult | undefined;
  /** The bare client's run, shared by both stores. */
  fanoutFloor: FanoutResult | undefined;
  fanout: FanoutResult | undefined;
  market: MarketResult | undefined;
  /** The market at as many leads as connections can send: what saturates the machine. */
  marketSaturation: ScenarioResult | undefined;
}

/** One human-readable line (plus error samples) for a finished scenario. */
export function describeScenario(title: string, result: ScenarioResult): string {
  const { load, rssMb } = result;
  const rss = Object.entries(rssMb)
    .map(([name, mb]) => `${name} ${mb} MB`)
    .join(', ');
  const cpu = Object.entries(cpuMsPerLead(result))
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ');
  const lines = [
    `${title.padEnd(22)} ${String(load.rps).padStart(8)} req/s` +
      (load.pacedRps === undefined ? '' : ` (paced at ${load.pacedRps})`) +
      `   p50 ${load.p50Ms} ms   p99 ${load.p99Ms} ms   ` +
      `processingTime p50 ${load.processingP50Ms ?? '-'} ms p99 ${load.processingP99Ms ?? '-'} ms   ` +
      `errors ${load.errors.total}   peak RSS ${rss}`,
    `  CPU ms per lead: ${cpu}${'buyerCalls' in result ? `   buyer calls ${String(result.buyerCalls)}` : ''}`,
  ];
  if (load.errors.total > 0) {
    lines.push(`  errors: ${JSON.stringify(errorFigures(load.errors))}`);
    lines.push(...load.errors.samples.map((sample) => `  e.g. ${sample}`));
  }
  return lines.join('\n');
}

/** The market's own figures, under its scenario line. */
function describeStages(stages: StageFigures): string {
  const ms = (value: number | undefined) => (value === undefined ? '-' : `${value}`);
  const pauses = Object.entries(stages.gcPauses)
    .map(([kind, { count, meanMs }]) => `${kind} ${count} x ${meanMs} ms`)
    .join(', ');
  return (
    `  distribution service: fsync p50 ${ms(stages.syncP50Ms)} p90 ${ms(stages.syncP90Ms)} p99 ${ms(stages.syncP99Ms)} ms; ` +
    `event-loop delay p50 ${ms(stages.eventLoopDelayP50Ms)} p99 ${ms(stages.eventLoopDelayP99Ms)} ms; ` +
    `collection pauses ${pauses || 'none'}`
  );
}

export function describeMarket({ market, captures }: MarketResult): string {
  const { calls } = market;
  return [
    `  ${market.leads} leads (the ${market.openingBurst} of the opening burst left out), ` +
      `sold ${(market.soldRate * 100).toFixed(1)}%, per lead: revenue $${market.revenuePerLead} ` +
      `payout $${market.payoutPerLead} margin $${market.marginPerLead}`,
    `  processingTime p50 ${market.processingP50Ms ?? '-'} ms p99 ${market.processingP99Ms ?? '-'} ms   ` +
      `buyer wait p50 ${market.buyerWaitP50Ms ?? '-'} ms p99 ${market.buyerWaitP99Ms ?? '-'} ms`,
    `  overhead (processingTime - buyer wait) p50 ${market.overheadP50Ms ?? '-'} ms p99 ${market.overheadP99Ms ?? '-'} ms ` +
      `(${market.overheadP99WithOpeningMs ?? '-'} ms with the opening burst)   ` +
      `selling engine alone p50 ${market.engineOverheadP50Ms ?? '-'} ms p99 ${market.engineOverheadP99Ms ?? '-'} ms`,
    `  buyer calls: ${calls.pings} pings, ${calls.posts} posts, ${calls.errors} errors, ${calls.timeouts} timeouts` +
      (market.unrecorded > 0 ? `   ${market.unrecorded} answered leads not found in the database` : ''),
    market.diskWaits
      ? `  commits that waited for the disk: ${market.diskWaits.waitsPerLead} per lead, ` +
        `${market.diskWaits.waitsPerPost ?? '-'} per post; fsyncs ${market.diskWaits.syncsPerLead} per lead`
      : '  commits that waited for the disk: not counted (MySQL)',
    market.stages ? describeStages(market.stages) : "  the distribution service's stages: not read",
    describeCaptures(captures),
  ].join('\n');
}

/** The figures of one store for the closing JSON line; a scenario that did not run gives nulls. */
export function storeFigures({
  floor,
  full,
  fanoutFloor,
  fanout,
  market,
  marketSaturation,
}: StoreResults): Record<string, unknown> {
  return {
    rps: full?.load.rps ?? null,
    p50_ms: full?.load.p50Ms ?? null,
    p99_ms: full?.load.p99Ms ?? null,
    processing_p50_ms: full?.load.processingP50Ms ?? null,
    processing_p99_ms: full?.load.processingP99Ms ?? null,
    floor_rps: floor?.load.rps ?? null,
    floor_p50_ms: floor?.load.p50Ms ?? null,
    floor_p99_ms: floor?.load.p99Ms ?? null,
    ratio: full && floor ? Math.round((full.load.rps / floor.load.rps) * 1000) / 1000 : null,
    cpu_ratio: full && floor ? cpuRatio(full, floor) : null,
    cpu_ms_per_lead: full ? cpuMsPerLead(full) : null,
    floor_cpu_ms_per_lead: floor ? cpuMsPerLead(floor) : null,
    rss_mb: full?.rssMb ?? null,
    floor_rss_mb: floor?.rssMb ?? null,
    peak_rss_mb: ownPeakRssMb([full, fanout, market]),
    errors: full ? errorFigures(full.load.errors) : null,
    floor_errors: floor ? errorFigures(floor.load.errors) : null,
    fanout: fanout ? { ...fanoutCost(fanout), errors: errorFigures(fanout.load.errors) } : null,
    fanout_floor: fanoutFloor ? fanoutCost(fanoutFloor) : null,
    fanout_cpu_per_call_ratio: fanout && fanoutFloor ? fanoutCallCostRatio(fanout, fanoutFloor) : null,
    market: market ? marketFigures(market) : null,
    market_saturation: marketSaturation
      ? {
          rps: marketSaturation.load.rps,
          answered_rps: marketSaturation.load.answeredRps,
          cpu_ms_per_lead: cpuMsPerLead(marketSaturation),
          errors: errorFigures(marketSaturation.load.errors),
        }
      : null,
  };
}

function marketFigures(result: MarketResult): Record<string, unknown> {
  const { load, rssMb, market, captures, connections } = result;
  const { processingP99Ms, overheadP99Ms, buyerWaitP99Ms } = market;
  return {
    rps: load.rps,
    paced_rps: load.pacedRps ?? null,
    cpu_ms_per_lead: cpuMsPerLead(result),
    p50_ms: load.p50Ms,
    p99_ms: load.p99Ms,
    processing_p50_ms: market.processingP50Ms ?? null,
    processing_p99_ms: processingP99Ms ?? null,
    buyer_wait_p50_ms: market.buyerWaitP50Ms ?? null,
    buyer_wait_p99_ms: buyerWaitP99Ms ?? null,
    overhead_p50_ms: market.overheadP50Ms ?? null,
    overhead_p99_ms: overheadP99Ms ?? null,
    engine_overhead_p50_ms: market.engineOverheadP50Ms ?? null,
    engine_overhead_p99_ms: market.engineOverheadP99Ms ?? null,
    overhead_p99_with_opening_burst_ms: market.overheadP99WithOpeningMs ?? null,
    disk_waits_per_lead: market.diskWaits?.waitsPerLead ?? null,
    disk_waits_per_post: market.diskWaits?.waitsPerPost ?? null,
    syncs_per_lead: market.diskWaits?.syncsPerLead ?? null,
    store_sync_p50_ms: market.stages?.syncP50Ms ?? null,
    store_sync_p90_ms: market.stages?.syncP90Ms ?? null,
    store_sync_p99_ms: market.stages?.syncP99Ms ?? null,
    event_loop_delay_p50_ms: market.stages?.eventLoopDelayP50Ms ?? null,
    event_loop_delay_p99_ms: market.stages?.eventLoopDelayP99Ms ?? null,
    gc_pauses: market.stages
      ? Object.fromEntries(
          Object.entries(market.stages.gcPauses).map(([kind, pause]) => [
            kind,
            { count: pause.count, mean_ms: pause.meanMs },
          ]),
        )
      : null,
    bar: {
      overhead_p99_ok: overheadP99Ms === undefined ? null : overheadP99Ms <= OVERHEAD_P99_MAX_MS,
      processing_p99_ok:
        processingP99Ms === undefined || buyerWaitP99Ms === undefined
          ? null
          : processingP99Ms <= buyerWaitP99Ms + PROCESSING_OVER_WAIT_P99_MAX_MS,
    },
    leads: market.leads,
    opening_burst_leads: market.openingBurst,
    sold_rate: market.soldRate,
    revenue_per_lead: market.revenuePerLead,
    payout_per_lead: market.payoutPerLead,
    margin_per_lead: market.marginPerLead,
    buyer_calls: market.calls,
    unrecorded_leads: market.unrecorded,
    rss_mb: rssMb,
    errors: errorFigures(load.errors),
    connections,
    sell_deadline_ms: SELL_DEADLINE_MS,
    ping_timeout_ms: Object.fromEntries(captures.map(({ market: name }) => [name, MARKETS[name].pingTimeoutMs])),
    post_timeout_ms: POST_TIMEOUT_MS,
    capture: captureFigures(captures),
  };
}

export function errorCount({ floor, full, fanout, market }: StoreResults): number {
  return [floor, full, fanout, market].reduce((sum, result) => sum + (result?.load.errors.total ?? 0), 0);
}

/** Leads answered but not found in the database: the market's figures leave them out, and they must not exist. */
export function unrecordedCount({ market }: StoreResults): number {
  return market?.market.unrecorded ?? 0;
}

function errorFigures(errors: LoadErrors): Record<string, unknown> {
  return {
    total: errors.total,
    non_200: errors.non200,
    unexpected_status: errors.unexpected,
    no_answer: errors.noAnswer,
  };
}
