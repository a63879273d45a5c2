import { startLeadflow } from './leadflow-processes.js';
import { applyLoad, type LoadSettings } from './load.js';
import {
  LONG_SELL_DEADLINE_MS,
  MARKET_ENDPOINTS,
  MARKET_LEAD_KEY,
  MARKET_SEED,
  marketBuyersDocument,
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
import { simulatorProcess, simulatorUrl, writeSimulatorConfig } from './simulator-process.js';
import { withTempDir } from './temp-dir.js';

/** How leadflow sells in one run of the market: its budget per lead and its routing settings. */
interface Variant {
  sellDeadlineMs: number;
  settings: Record<string, string>;
}

/** One auction across the tiers, posts by expected revenue within the time left. */
const ROUTED = { LEADFLOW_ROUTING_MODE: 'auction', LEADFLOW_POST_ORDER: 'expected_value' };
/** The plain waterfall: tiers in order, each posted in price order. */
const WATERFALL = { LEADFLOW_ROUTING_MODE: 'strict_tiers', LEADFLOW_POST_ORDER: 'price' };

/** Every run sends the same leads in the same order (their clickids), so the market answers them alike. */
const CLICKID_PREFIX = 'market';

/** What the runs on the same leads took of what the market held. */
export interface MarketCapture {
  budgetMs: number;
  longBudgetMs: number;
  routed: Capture;
  waterfall: Capture;
  /** Routed at the long budget, against the best within it. */
  long: Capture;
  /** Routed against the waterfall on the leads both measured. */
  overWaterfall: PairedRevenue;
}

export interface MarketResult extends ScenarioResult {
  market: MarketFigures;
  capture: MarketCapture;
  connections: number;
}

interface VariantResult extends ScenarioResult {
  market: MarketFigures;
  takes: Map<string, LeadTake>;
  capture: Capture;
}

/**
 * The intake path selling to a market of simulated lenders (market.ts) in their own process, three times
 * on the same leads: routed at the publishers' budget (its figures are the scenario's), the plain
 * waterfall at that budget, routed at a long budget. Each lead's take is set against the best sale the
 * market held for it within the budget (market-capture.ts). Once the processes have stopped, each answered
 * lead is matched with its record in the service's database: its pings and posts give the time it waited
 * on buyers, the rest of its processingTime is leadflow's own.
 */
export async function runMarket(settings: LoadSettings, databaseUrl: string | undefined): Promise<MarketResult> {
  const routed = await runVariant(settings, databaseUrl, { sellDeadlineMs: SELL_DEADLINE_MS, settings: ROUTED });
  const waterfall = await inScratchDatabase(databaseUrl, (url) =>
    runVariant(settings, url, { sellDeadlineMs: SELL_DEADLINE_MS, settings: WATERFALL }),
  );
  const long = await inScratchDatabase(databaseUrl, (url) =>
    runVariant(settings, url, { sellDeadlineMs: LONG_SELL_DEADLINE_MS, settings: ROUTED }),
  );
  return {
    load: routed.load,
    rssMb: routed.rssMb,
    cpuMs: routed.cpuMs,
    market: routed.market,
    capture: {
      budgetMs: SELL_DEADLINE_MS,
      longBudgetMs: LONG_SELL_DEADLINE_MS,
      routed: routed.capture,
      waterfall: waterfall.capture,
      long: long.capture,
      overWaterfall: pairedRevenue(routed.takes, waterfall.takes),
    },
    connections: settings.connections,
  };
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
      endpoints: MARKET_ENDPOINTS,
    });
    const leadflow = await startLeadflow(dataDir, databaseUrl, {
      LEADFLOW_SELL_DEADLINE_MS: String(variant.sellDeadlineMs),
      ...variant.settings,
    });
    const simulator = simulatorProcess(simulatorConfig);
    const processes = [...leadflow.processes, simulator];
    const result = await measureProcesses(processes, leadflow.readyUrl, async (window) => {
      const keys = await seedPublishersAndBuyers(
        leadflow,
        marketBuyersDocument(await simulatorUrl(simulator, processes)),
      );
      const target = {
        baseUrl: leadflow.baseUrl,
        keys,
        expectedStatuses: ['sold', 'rejected'] as const,
        clickidPrefix: CLICKID_PREFIX,
      };
      return applyLoad(target, settings, window);
    });
    const { answers } = result.load;
    const stored = await readStoredLeads(dataDir, databaseUrl, new Set(answers.map((answer) => answer.leadId)));
    const takes = leadTakes(answers, stored, variant.sellDeadlineMs);
    return { ...result, market: marketFigures(answers, stored), takes, capture: captureOf(takes) };
  });
}
