// npm run bench: the floor of our shape, the full intake path and a market of simulated lenders, measured
// one after another on this machine.
import { loadavg } from 'node:os';
import { type BenchConfig, loadBenchConfig, type Scenario } from './config.js';
import { runFloor } from './floor-scenario.js';
import { runFull } from './full-scenario.js';
import { LeadBodies } from './lead-body.js';
import type { LoadSettings } from './load.js';
import { runMarket } from './market-scenario.js';
import {
  describeMarket,
  describeScenario,
  errorCount,
  type StoreResults,
  storeFigures,
  unrecordedCount,
} from './report.js';
import type { ScenarioResult } from './scenario.js';
import { withScratchDatabase } from './scratch-database.js';

type Store = 'sqlite' | 'mysql';

async function runScenario<R extends ScenarioResult>(
  kind: Scenario,
  scenario: (settings: LoadSettings, databaseUrl: string | undefined) => Promise<R>,
  store: Store,
  settings: LoadSettings,
  config: BenchConfig,
): Promise<R | undefined> {
  if (config.only && config.only !== kind) return undefined;
  console.log(`${kind} on ${store}: starting`);
  const run = (databaseUrl: string | undefined): Promise<R> => scenario(settings, databaseUrl);
  const result = store === 'mysql' ? await withScratchDatabase(config.databaseUrl!, run) : await run(undefined);
  console.log(describeScenario(`${kind} (${store})`, result));
  return result;
}

async function runStore(store: Store, config: BenchConfig): Promise<StoreResults> {
  const floor = await runScenario('floor', runFloor, store, config, config);
  const full = await runScenario('full', runFull, store, config, config);
  const market = await runScenario(
    'market',
    runMarket,
    store,
    { ...config, connections: config.marketConnections },
    config,
  );
  if (market) console.log(describeMarket(market));
  return { floor, full, market };
}

function loadAverage(): string {
  return loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  const config = loadBenchConfig();
  console.log(
    `leadflow bench: ${config.connections} connections (market ${config.marketConnections}), ` +
      `${config.warmupS} s warm-up + ${config.durationS} s measured per scenario, ` +
      `lead body ${new LeadBodies().next().length} bytes, ` +
      (config.databaseUrl ? 'SQLite then MySQL' : 'SQLite (set DATABASE_URL to also measure MySQL)'),
  );
  // Other work on the machine skews every figure; the load average tells a quiet run from a noisy one.
  console.log(`load average: ${loadAverage()}`);
  const sqlite = await runStore('sqlite', config);
  const mysql = config.databaseUrl ? await runStore('mysql', config) : undefined;

  const errors = errorCount(sqlite) + (mysql ? errorCount(mysql) : 0);
  if (errors > 0) {
    console.log(`FAILED: ${errors} requests were not answered as expected; the figures above include them`);
    process.exitCode = 1;
  }
  const unrecorded = unrecordedCount(sqlite) + (mysql ? unrecordedCount(mysql) : 0);
  if (unrecorded > 0) {
    console.log(
      `FAILED: ${unrecorded} answered leads have no record in the database; the market figures leave them out`,
    );
    process.exitCode = 1;
  }
  const summary = {
    ...storeFigures(sqlite),
    ...(mysql ? { mysql: storeFigures(mysql) } : {}),
    connections: config.connections,
    warmup_s: config.warmupS,
    duration_s: config.durationS,
  };
  console.log(JSON.stringify(summary));
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
