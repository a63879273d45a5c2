import { buyersDocument } from './buyer-document.js';
import {
  endpointsOf,
  FANOUT_SELL_DEADLINE_MS,
  type FanoutSettings,
  fanoutBuyers,
  lendersOf,
  startFanoutSimulators,
} from './fanout.js';
import { startLeadflow } from './leadflow-processes.js';
import { applyLoad, type MeasuredWindow } from './load.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { seedPublishersAndBuyers } from './seed.js';
import { buyerCallsSoFar } from './simulator-calls.js';
import { withTempDir } from './temp-dir.js';

export interface FanoutResult extends ScenarioResult {
  /** Pings and posts the simulators answered during the measured run. */
  buyerCalls: number;
}

/** Counts the simulators' calls over the measured window, around the processes' CPU counters. */
export class CountingWindow implements MeasuredWindow {
  calls = 0;

  constructor(
    private readonly inner: MeasuredWindow,
    private readonly simulatorUrls: readonly string[],
  ) {}

  async start(): Promise<void> {
    this.calls = -(await buyerCallsSoFar(this.simulatorUrls));
    await this.inner.start();
  }

  async stop(): Promise<void> {
    await this.inner.stop();
    this.calls += await buyerCallsSoFar(this.simulatorUrls);
  }
}

/** The intake path selling every lead through a ping tree of `settings.fanoutBuyers` buyers (fanout.ts). */
export function runFanout(settings: FanoutSettings, databaseUrl: string | undefined): Promise<FanoutResult> {
  return withTempDir(async (dataDir) => {
    const simulators = await startFanoutSimulators(dataDir, settings.fanoutBuyers);
    const leadflow = await startLeadflow(dataDir, databaseUrl, {
      LEADFLOW_SELL_DEADLINE_MS: String(FANOUT_SELL_DEADLINE_MS),
    });
    const processes = [...leadflow.processes, ...simulators.processes];
    let window: CountingWindow | undefined;
    const result = await measureProcesses(processes, leadflow.readyUrl, async (meter) => {
      const buyers = simulators.urls.flatMap((url, i) => {
        const lenders = lendersOf(i, settings.fanoutBuyers);
        return (buyersDocument(url, endpointsOf(lenders), fanoutBuyers(lenders)) as { buyers: unknown[] }).buyers;
      });
      const keys = await seedPublishersAndBuyers(leadflow, { buyers });
      window = new CountingWindow(meter, simulators.urls);
      return applyLoad({ baseUrl: leadflow.baseUrl, keys, expectedStatuses: ['sold', 'rejected'] }, settings, window);
    });
    return { ...result, buyerCalls: window?.calls ?? 0 };
  });
}
