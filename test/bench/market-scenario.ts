import { diskWaitFigures, diskWaitsBetween } from './disk-waits.js';
import { startLeadflow } from './leadflow-processes.js';
import { applyLoad, type LoadSettings, windows } from './load.js';
import {
  MARKET_BUDGETS_MS,
  MARKET_LEAD_KEY,
  MARKET_SEED,
  MARKETS,
  type Market,
  type MarketName,
  marketBuyersDocument,
  marketEndpoints,
  SELL_DEADLINE_MS,
} from './market.js';
import {
  type Capture,
  captureOf,
  type LeadTake,
  leadTakes,
  type PairedRevenue,
  pairedRevenue,
} from './market-capture.js';
import { readStoredLeads } from './market-database.js';
import { type MarketFigures, marketFigures } from './market-figures.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { withScratchDatabase } from './scratch-database.js';
import { seedPublishersAndBuyers } from './seed.js';
import { ServiceMetricsMeter, stageFigures } from './service-stages.js';
import { simulatorProcess, simulatorUrl, writeSimulatorConfig } from './simulator-process.js';
import { withTempDir } from './temp-dir.js';

/** How leadflow sells in one run: the market, its budget per lead and its routing settings. */
interface Variant {
  market: Market;
  sellDeadlineMs: number;
  settings: Record<string, string>;
}

/** One auction across the tiers, posts by expected revenue within the time left. */
const ROUTED = { LEADFLOW_ROUTING_MODE: 'auction', LEADFLOW_POST_ORDER: 'expected_value' };
/** The plain waterfall: tiers in order, each posted in price order. */
const WATERFALL = { LEADFLOW_ROUTING_MODE: 'strict_tiers', LEADFLOW_POST_ORDER: 'price' };

/** Every run sends the same leads in the same order (their clickids), so the market answers them alike. */
const CLICKID_PREFIX = 'market';

/** What routed and the waterfall took at one budget, on the same leads. */
export interface BudgetCapture {
  budgetMs: number;
  routed: Capture;
  waterfall: Capture;
  /** Routed against the waterfall on the leads both measured. */
  overWaterfall: PairedRevenue;
}

/** What the runs on one market took of what it held, budget by budget. */
export interface MarketCapture {
  market: MarketName;
  budgets: BudgetCapture[];
}

export interface MarketResult extends ScenarioResult {
  market: MarketFigures;
  captures: MarketCapture[];
  connections: number;
}

interface VariantResult extends ScenarioResult {
  market: MarketFigures;
  takes: Map<string, LeadTake>;
  capture: Capture;
}

/**
 * The intake path selling to markets of simulated lenders (market.ts), each in its own process: for each
 * market and each budget of MARKET_BUDGETS_MS, routed then the plain waterfall, on the same leads. The
 * first market routed at the publishers' budget gives the scenario's figures. Each lead's take is set
 * against the best sale the market held for it within the budget (market-capture.ts). Once the processes
 * have stopped, each answered lead is matched with its record in the service's database: its pings and
 * posts give the time it waited on buyers, the rest of its processingTime is leadflow's own.
 */
export async function runMarkets(
  settings: LoadSettings,
  databaseUrl: string | undefined,
  markets: readonly MarketName[],
): Promise<MarketResult> {
  const [first, ...others] = markets.map((name) => MARKETS[name]);
  const headline = await runVariant(settings, databaseUrl, {
    market: first!,
    sellDeadlineMs: SELL_DEADLINE_MS,
    settings: ROUTED,
  });
  const captures: MarketCapture[] = [];
  for (const market of [first!, ...others]) {
    const budgets: BudgetCapture[] = [];
    for (const budgetMs of MARKET_BUDGETS_MS) {
      const run = (variant: Record<string, string>) =>
        inScratchDatabase(databaseUrl, (url) =>
          runVariant(settings, url, { market, sellDeadlineMs: budgetMs, settings: variant }),
        );
      const routed = market === first && budgetMs === SELL_DEADLINE_MS ? headline : await run(ROUTED);
      const waterfall = await run(WATERFALL);
      budgets.push({
        budgetMs,
        routed: routed.capture,
        waterfall: waterfall.capture,
        overWaterfall: pairedRevenue(routed.takes, waterfall.takes),
      });
    }
    captures.push({ market: market.name, budgets });
  }
  return {
    load: headline.load,
    rssMb: headline.rssMb,
    cpuMs: headline.cpuMs,
    market: headline.market,
    captures,
    connections: settings.connections,
  };
}

/** The first market routed at the publishers' budget alone: the run that finds what saturates the machine. */
export function runMarketOnce(
  settings: LoadSettings,
  databaseUrl: string | undefined,
  market: MarketName,
): Promise<VariantResult> {
  return runVariant(settings, databaseUrl, {
    market: MARKETS[market],
    sellDeadlineMs: SELL_DEADLINE_MS,
    settings: ROUTED,
  });
}

/** A fresh MySQL database for each run on MySQL; SQLite runs have their own data directory. */
function inScratchDatabase<T>(
  databaseUrl: string | undefined,
  work: (url: string | undefined) => Promise<T>,
): Promise<T> {
  return databaseUrl ? withScratchDatabase(databaseUrl, work) : work(undefined);
}

function runVariant(settings: LoadSettings, databaseUrl: string | undefined, variant: Variant): Promise<VariantResult> {
  return withTempDir(async (dataDir) => {
    const simulatorConfig = await writeSimulatorConfig(dataDir, {
      seed: MARKET_SEED,
      leadKey: MARKET_LEAD_KEY,
      endpoints: marketEndpoints(variant.market),
    });
    // Listening before leadflow's ports are picked: a port of its own choosing is then none of theirs.
    const simulator = simulatorProcess(simulatorConfig);
    const simulatorBaseUrl = await simulatorUrl(simulator, [simulator]);
    const leadflow = await startLeadflow(dataDir, databaseUrl, {
      LEADFLOW_SELL_DEADLINE_MS: String(variant.sellDeadlineMs),
      ...variant.settings,
    });
    const processes = [...leadflow.processes, simulator];
    const serviceMetrics = new ServiceMetricsMeter(leadflow.metricsUrl);
    const result = await measureProcesses(processes, leadflow.readyUrl, async (window) => {
      const keys = await seedPublishersAndBuyers(leadflow, marketBuyersDocument(variant.market, simulatorBaseUrl));
      const target = {
        baseUrl: leadflow.baseUrl,
        keys,
        expectedStatuses: ['sold', 'rejected'] as const,
        clickidPrefix: CLICKID_PREFIX,
      };
      return applyLoad(target, settings, windows(window, serviceMetrics));
    });
    const { answers } = result.load;
    const stored = await readStoredLeads(dataDir, databaseUrl, new Set(answers.map((answer) => answer.leadId)));
    const takes = leadTakes(variant.market, answers, stored, variant.sellDeadlineMs);
    const posts = [...stored.values()].reduce(
      (total, lead) => total + lead.calls.filter((call) => call.kind === 'post').length,
      0,
    );
    const readings = serviceMetrics.readings;
    const market = {
      ...marketFigures(answers, stored),
      diskWaits: readings && diskWaitFigures(diskWaitsBetween(readings.before, readings.after), answers.length, posts),
      stages: readings && stageFigures(readings.before, readings.after),
    };
    return { ...result, market, takes, capture: captureOf(takes) };
  });
}
