import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Runs work with a fresh directory that is removed afterwards, whatever happens (kept with BENCH_KEEP_DATA set). */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-bench-'));
  try {
    return await work(dir);
  } finally {
    if (!process.env.BENCH_KEEP_DATA) await rm(dir, { recursive: true, force: true });
  }
}
