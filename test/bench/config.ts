/** What one bench run does, from the environment. */
export interface BenchConfig {
  warmupS: number;
  durationS: number;
  connections: number;
  /** The market scenario's: its leads wait on buyers, so fewer connections already keep it busy. */
  marketConnections: number;
  /** Which scenarios run: all, or only one kind while it is being worked on. */
  only: Scenario | undefined;
  /** mysql://... ; when set, every scenario also runs on MySQL. */
  databaseUrl: string | undefined;
}

export const SCENARIOS = ['floor', 'full', 'market'] as const;
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
  const scenario = SCENARIOS.find((name) => name === raw);
  if (scenario) return scenario;
  throw new Error(`BENCH_ONLY must be one of ${SCENARIOS.join(', ')}, got "${raw}"`);
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
    marketConnections: positiveInteger(env, 'BENCH_MARKET_CONNECTIONS', 50),
    only: only(env),
    databaseUrl: databaseUrl(env),
  };
}
