import { FANOUT_DEFAULT_BUYERS } from './fanout.js';
import { MARKET_NAMES, type MarketName } from './market.js';

/** What one bench run does, from the environment. */
export interface BenchConfig {
  warmupS: number;
  durationS: number;
  connections: number;
  /**
   * The market scenario's: enough to saturate the machine in its saturating run; the measured run sends
   * leads at half the rate that run reached, over as many connections.
   */
  marketConnections: number;
  /** The fan-out scenario's and its floor's: leads in flight at once, each pinging every buyer of the tree. */
  fanoutConnections: number;
  /** The fan-out tree's buyers (BENCH_FANOUT_BUYERS). */
  fanoutBuyers: number;
  /** The markets the market scenario sells to (BENCH_MARKETS), the first giving its headline figures. */
  markets: readonly MarketName[];
  /** Which scenarios run: all, or only some while they are being worked on. */
  only: ReadonlySet<Scenario> | undefined;
  /** mysql://... ; when set, every scenario also runs on MySQL. */
  databaseUrl: string | undefined;
}

export const SCENARIOS = ['floor', 'full', 'fanout_floor', 'fanout', 'market'] as const;
export type Scenario = (typeof SCENARIOS)[number];

type Env = Record<string, string | undefined>;

function positiveInteger(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

function only(env: Env): BenchConfig['only'] {
  const raw = env.BENCH_ONLY;
  if (raw === undefined || raw === '') return undefined;
  return new Set(
    raw.split(',').map((name) => {
      const scenario = SCENARIOS.find((known) => known === name.trim());
      if (scenario) return scenario;
      throw new Error(`BENCH_ONLY must be a comma-separated list of ${SCENARIOS.join(', ')}, got "${raw}"`);
    }),
  );
}

function markets(env: Env): MarketName[] {
  const raw = env.BENCH_MARKETS;
  if (raw === undefined || raw === '') return [...MARKET_NAMES];
  return raw.split(',').map((name) => {
    const market = MARKET_NAMES.find((known) => known === name.trim());
    if (market) return market;
    throw new Error(`BENCH_MARKETS must be a comma-separated list of ${MARKET_NAMES.join(', ')}, got "${raw}"`);
  });
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!raw.startsWith('mysql://')) throw new Error('DATABASE_URL must start with mysql://');
  return raw;
}

export function loadBenchConfig(env: Env = process.env): BenchConfig {
  return {
    warmupS: positiveInteger(env, 'BENCH_WARMUP_S', 10),
    durationS: positiveInteger(env, 'BENCH_DURATION_S', 20),
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', 50),
    marketConnections: positiveInteger(env, 'BENCH_MARKET_CONNECTIONS', 100),
    fanoutConnections: positiveInteger(env, 'BENCH_FANOUT_CONNECTIONS', 4),
    fanoutBuyers: positiveInteger(env, 'BENCH_FANOUT_BUYERS', FANOUT_DEFAULT_BUYERS),
    markets: markets(env),
    only: only(env),
    databaseUrl: databaseUrl(env),
  };
}
