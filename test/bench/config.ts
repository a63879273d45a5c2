/** What one bench run does, from the environment. */
export interface BenchConfig {
  warmupS: number;
  durationS: number;
  connections: number;
  /** Which scenarios run: both, or only one kind while the other is being worked on. */
  only: 'floor' | 'full' | undefined;
  /** mysql://... ; when set, every scenario also runs on MySQL. */
  databaseUrl: string | undefined;
}

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
  if (raw === 'floor' || raw === 'full') return raw;
  throw new Error(`BENCH_ONLY must be "floor" or "full", got "${raw}"`);
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
    only: only(env),
    databaseUrl: databaseUrl(env),
  };
}
