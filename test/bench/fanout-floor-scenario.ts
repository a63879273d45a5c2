import { Pool } from 'undici';
import { BareFanoutClient, type BareLender } from './bare-fanout-client.js';
import { benchProcess } from './cpu-meter.js';
import { type FanoutSettings, lendersOf, startFanoutSimulators } from './fanout.js';
import { CountingWindow, type FanoutResult } from './fanout-scenario.js';
import { measureProcesses } from './scenario.js';
import { ascending, percentile, round } from './stats.js';
import { withTempDir } from './temp-dir.js';

/**
 * The floor of fan-out: the bare client (bare-fanout-client.ts), run by the bench process itself (its CPU
 * time is reported as `bench`), selling leads to the same simulators at the same concurrency as the
 * fan-out scenario. No store: the floor of the buyer calls alone.
 */
export function runFanoutFloor(settings: FanoutSettings): Promise<FanoutResult> {
  return withTempDir(async (dataDir) => {
    const simulators = await startFanoutSimulators(dataDir, settings.fanoutBuyers);
    const pools = simulators.urls.map((url) => new Pool(url, { keepAliveTimeout: 4_000 }));
    const lenders: BareLender[] = pools.flatMap((pool, i) =>
      lendersOf(i, settings.fanoutBuyers).map((name) => ({ pool, name })),
    );
    const client = new BareFanoutClient(lenders);
    let window: CountingWindow | undefined;
    try {
      const result = await measureProcesses(
        simulators.processes,
        `${simulators.urls[0]}/_simulator/stats`,
        async (meter) => {
          await client.run(settings.connections, settings.warmupS);
          window = new CountingWindow(meter, simulators.urls);
          await window.start();
          const run = await client.run(settings.connections, settings.durationS);
          await window.stop();
          const durations = ascending(run.durations);
          return {
            rps: round(run.leads / settings.durationS),
            requests: run.leads,
            answeredRps: round(run.leads / settings.durationS),
            pacedRps: undefined,
            p50Ms: percentile(durations, 0.5) ?? 0,
            p99Ms: percentile(durations, 0.99) ?? 0,
            processingP50Ms: percentile(durations, 0.5),
            processingP99Ms: percentile(durations, 0.99),
            answers: [],
            errors: { total: 0, non200: {}, unexpected: 0, noAnswer: 0, samples: [] },
          };
        },
        [benchProcess],
      );
      return { ...result, buyerCalls: window?.calls ?? 0 };
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });
}
