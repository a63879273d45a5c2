import type { LoadResult } from './load.js';
import { type NodeProcess, ScenarioFailure } from './node-process.js';
import { waitUntilReady } from './ready.js';

export interface ScenarioResult {
  load: LoadResult;
  /** Peak RSS of each process, by name. */
  rssMb: Record<string, number>;
}

/**
 * Runs work (setup and load) against the started processes once readyUrl answers 200, reads their peak
 * RSS, and stops them all, awaiting their exit, whatever happened.
 */
export async function measureProcesses(
  processes: NodeProcess[],
  readyUrl: string,
  work: () => Promise<LoadResult>,
): Promise<ScenarioResult> {
  try {
    await waitUntilReady(readyUrl, processes);
    const load = await work();
    const exited = processes.find((p) => !p.running);
    if (exited) throw new ScenarioFailure(`${exited.name} exited during the load`, processes);
    return { load, rssMb: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMb()])) };
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
  }
}
