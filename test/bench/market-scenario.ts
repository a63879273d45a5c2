import { buyersDocument } from './buyer-document.js';
import { startLeadflow } from './leadflow-processes.js';
import { applyLoad, type LoadSettings } from './load.js';
import { MARKET_BUYERS, MARKET_ENDPOINTS, MARKET_SEED, SELL_DEADLINE_MS } from './market.js';
import { readStoredLeads } from './market-database.js';
import { type MarketFigures, marketFigures } from './market-figures.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { seedPublishersAndBuyers } from './seed.js';
import { simulatorProcess, simulatorUrl, writeSimulatorConfig } from './simulator-process.js';
import { withTempDir } from './temp-dir.js';

export interface MarketResult extends ScenarioResult {
  market: MarketFigures;
  connections: number;
}

/**
 * The intake path selling to a market of simulated lenders (market.ts) in their own process. Once the
 * processes have stopped, each answered lead is matched with its record in the service's database: its
 * pings and posts give the time it waited on buyers, the rest of its processingTime is leadflow's own.
 */
export function runMarket(settings: LoadSettings, databaseUrl: string | undefined): Promise<MarketResult> {
  return withTempDir(async (dataDir) => {
    const simulatorConfig = await writeSimulatorConfig(dataDir, { seed: MARKET_SEED, endpoints: MARKET_ENDPOINTS });
    const leadflow = await startLeadflow(dataDir, databaseUrl, { LEADFLOW_SELL_DEADLINE_MS: String(SELL_DEADLINE_MS) });
    const simulator = simulatorProcess(simulatorConfig);
    const processes = [...leadflow.processes, simulator];
    const result = await measureProcesses(processes, leadflow.readyUrl, async () => {
      const buyers = buyersDocument(await simulatorUrl(simulator, processes), MARKET_ENDPOINTS, MARKET_BUYERS);
      const keys = await seedPublishersAndBuyers(leadflow, buyers);
      return applyLoad({ baseUrl: leadflow.baseUrl, keys, expectedStatuses: ['sold', 'rejected'] }, settings);
    });
    const { answers } = result.load;
    const stored = await readStoredLeads(dataDir, databaseUrl, new Set(answers.map((answer) => answer.leadId)));
    return { ...result, market: marketFigures(answers, stored), connections: settings.connections };
  });
}
