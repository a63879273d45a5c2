import { CpuMeter, type CpuSource } from './cpu-meter.js';
import type { LoadResult, MeasuredWindow } from './load.js';
import { type NodeProcess, ScenarioFailure } from './node-process.js';
import { waitUntilReady } from './ready.js';

export interface ScenarioResult {
  load: LoadResult;
  /** Peak RSS of each process, by name. */
  rssMb: Record<string, number>;
  /** CPU time each process used during the measured run, by name. */
  cpuMs: Record<string, number>;
}

/**
 * Runs work (setup and load) against the started processes once readyUrl answers 200, reads their peak
 * RSS and the CPU time they (and any other sources) used in the window work marks, and stops them one
 * after another in their order, whatever happened: the buyers' simulators come last, so that a post
 * still open when the load ends gets its answer (or its own timeout), not a connection reset that leaves
 * its lead held.
 */
export async function measureProcesses(
  processes: NodeProcess[],
  readyUrl: string,
  work: (window: MeasuredWindow) => Promise<LoadResult>,
  otherSources: readonly CpuSource[] = [],
): Promise<ScenarioResult> {
  try {
    await waitUntilReady(readyUrl, processes);
    const meter = new CpuMeter([...processes, ...otherSources]);
    const load = await work(meter);
    const exited = processes.find((p) => !p.running);
    if (exited) throw new ScenarioFailure(`${exited.name} exited during the load`, processes);
    return { load, rssMb: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMb()])), cpuMs: meter.result() };
  } finally {
    for (const p of processes) await p.stop();
  }
}
