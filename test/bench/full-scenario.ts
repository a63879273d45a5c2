import type { EndpointConfig } from '@leadflow/simulator';
import { buyersDocument, type SimulatorBuyer } from './buyer-document.js';
import { startLeadflow } from './leadflow-processes.js';
import { applyLoad, type LoadSettings } from './load.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { seedPublishersAndBuyers } from './seed.js';
import { simulatorProcess, simulatorUrl, writeSimulatorConfig } from './simulator-process.js';
import { withTempDir } from './temp-dir.js';

/** One lender that answers at once and buys every lead at a fixed price. */
export const ENDPOINTS: EndpointConfig[] = [
  { path: '/bench-lender/post', kind: 'direct_post', format: 'json', price: { fixed: 15 }, acceptRate: 1 },
];

/** Its 15.00 pays the publisher 12.00 at the 0.8 share: above the leads' 10.00 floor. */
const BUYER: SimulatorBuyer = {
  name: 'bench-buyer',
  tier: 1,
  postPath: '/bench-lender/post',
  timeoutMs: 1_000,
  pricing: { type: 'fixed', price: '15.00' },
  payout: { revenueShare: 0.8 },
};

/** The real intake path: the compiled gateway and distribution service, leads sold over HTTP to one simulated lender. */
export function runFull(settings: LoadSettings, databaseUrl: string | undefined): Promise<ScenarioResult> {
  return withTempDir(async (dataDir) => {
    const simulatorConfig = await writeSimulatorConfig(dataDir, { seed: 1, endpoints: ENDPOINTS });
    // Listening before leadflow's ports are picked: a port of its own choosing is then none of theirs.
    const simulator = simulatorProcess(simulatorConfig);
    const simulatorBaseUrl = await simulatorUrl(simulator, [simulator]);
    const leadflow = await startLeadflow(dataDir, databaseUrl);
    const processes = [...leadflow.processes, simulator];
    return measureProcesses(processes, leadflow.readyUrl, async (window) => {
      const buyers = buyersDocument(simulatorBaseUrl, ENDPOINTS, [BUYER]);
      const keys = await seedPublishersAndBuyers(leadflow, buyers);
      return applyLoad({ baseUrl: leadflow.baseUrl, keys, expectedStatuses: ['sold'] }, settings, window);
    });
  });
}
