// npm run bench: the full intake path against its floor, a big ping tree against a bare client, and a
// market of simulated lenders at half the load that saturates the machine, measured one after another.
import { loadavg } from 'node:os';
import { type BenchConfig, loadBenchConfig, type Scenario } from './config.js';
import { runFanoutFloor } from './fanout-floor-scenario.js';
import { type FanoutResult, runFanout } from './fanout-scenario.js';
import { runFloor } from './floor-scenario.js';
import { runFull } from './full-scenario.js';
import { LeadBodies } from './lead-body.js';
import type { LoadSettings } from './load.js';
import { runMarketOnce, runMarkets } from './market-scenario.js';
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

/** The market's saturating run: long enough for a steady rate, short enough to keep the bench short. */
const SATURATION_WARMUP_S = 5;
const SATURATION_DURATION_S = 10;

async function runScenario<R extends ScenarioResult, S extends LoadSettings>(
  kind: Scenario,
  scenario: (settings: S, databaseUrl: string | undefined) => Promise<R>,
  store: Store | undefined,
  settings: S,
  config: BenchConfig,
  name: string = kind,
): Promise<R | undefined> {
  if (config.only && !config.only.has(kind)) return undefined;
  const title = store ? `${name} (${store})` : name;
  console.log(`${title}: starting`);
  const run = (databaseUrl: string | undefined): Promise<R> => scenario(settings, databaseUrl);
  const result = store === 'mysql' ? await withScratchDatabase(config.databaseUrl!, run) : await run(undefined);
  console.log(describeScenario(title, result));
  return result;
}

async function runStore(
  store: Store,
  config: BenchConfig,
  fanoutFloor: FanoutResult | undefined,
): Promise<StoreResults> {
  const floor = await runScenario('floor', runFloor, store, config, config);
  const full = await runScenario('full', runFull, store, config, config);
  const fanout = await runScenario(
    'fanout',
    runFanout,
    store,
    { ...config, connections: config.fanoutConnections },
    config,
  );
  // What saturates the machine is found on processes of its own: an overloaded run opens buyers'
  // circuits, which would still be open in the measured run. Its rate counts the leads answered, not
  // the 503s of a service shedding load.
  const saturationLoad = {
    ...config,
    warmupS: SATURATION_WARMUP_S,
    durationS: SATURATION_DURATION_S,
    connections: config.marketConnections,
  };
  const [headlineMarket] = config.markets;
  const marketSaturation = await runScenario(
    'market',
    (settings, databaseUrl) => runMarketOnce(settings, databaseUrl, headlineMarket!),
    store,
    saturationLoad,
    config,
    'market saturation',
  );
  const halfLoad = {
    ...config,
    connections: config.marketConnections,
    overallRate: Math.max(1, (marketSaturation?.load.answeredRps ?? 0) / 2),
  };
  const market =
    marketSaturation &&
    (await runScenario(
      'market',
      (settings, databaseUrl) => runMarkets(settings, databaseUrl, config.markets),
      store,
      halfLoad,
      config,
    ));
  if (market) console.log(describeMarket(market));
  return { floor, full, fanoutFloor, fanout, market, marketSaturation };
}

function loadAverage(): string {
  return loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadBenchConfig();
  console.log(
    `leadflow bench: ${config.connections} connections (fan-out ${config.fanoutConnections} to ${config.fanoutBuyers} buyers, market ${config.marketConnections}), ` +
      `${config.warmupS} s warm-up + ${config.durationS} s measured per scenario, ` +
      `lead body ${new LeadBodies().next().length} bytes, ` +
      (config.databaseUrl ? 'SQLite then MySQL' : 'SQLite (set DATABASE_URL to also measure MySQL)'),
  );
  // Other work on the machine skews every figure; the load average tells a quiet run from a noisy one.
  console.log(`load average: ${loadAverage()}`);
  // The bare client uses no store: one run is the floor of both stores' fan-out.
  const fanoutFloor = await runScenario(
    'fanout_floor',
    (settings) => runFanoutFloor(settings),
    undefined,
    { ...config, connections: config.fanoutConnections },
    config,
  );
  const sqlite = await runStore('sqlite', config, fanoutFloor);
  const mysql = config.databaseUrl ? await runStore('mysql', config, fanoutFloor) : undefined;

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
  console.log(`load average: ${loadAverage()}; the bench took ${Math.round((performance.now() - started) / 1000)} s`);
  const summary = {
    ...storeFigures(sqlite),
    ...(mysql ? { mysql: storeFigures(mysql) } : {}),
    connections: config.connections,
    fanout_connections: config.fanoutConnections,
    fanout_buyers: config.fanoutBuyers,
    market_connections: config.marketConnections,
    warmup_s: config.warmupS,
    duration_s: config.durationS,
  };
  console.log(JSON.stringify(summary));
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
