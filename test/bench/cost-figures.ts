import type { FanoutResult } from './fanout-scenario.js';
import type { ScenarioResult } from './scenario.js';

/** The processes whose cost is leadflow's (or its floor's): the buyer simulators are reported apart. */
const SIMULATOR = /^simulator/;

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** CPU ms per answered lead of each process in the measured run. */
export function cpuMsPerLead({ cpuMs, load }: ScenarioResult): Record<string, number> {
  return Object.fromEntries(
    Object.entries(cpuMs).map(([name, ms]) => [name, load.requests ? round3(ms / load.requests) : 0]),
  );
}

/** CPU ms of the processes that are not buyer simulators, together. */
export function ownCpuMs({ cpuMs }: ScenarioResult): number {
  return Object.entries(cpuMs).reduce((sum, [name, ms]) => (SIMULATOR.test(name) ? sum : sum + ms), 0);
}

function simulatorCpuMs({ cpuMs }: ScenarioResult): number {
  return Object.entries(cpuMs).reduce((sum, [name, ms]) => (SIMULATOR.test(name) ? sum + ms : sum), 0);
}

/** The peak RSS of the processes that are not buyer simulators, over results. */
export function ownPeakRssMb(results: readonly (ScenarioResult | undefined)[]): number | null {
  const peaks = results.flatMap((result) =>
    Object.entries(result?.rssMb ?? {}).filter(([name]) => !SIMULATOR.test(name)),
  );
  return peaks.length ? Math.max(...peaks.map(([, mb]) => mb)) : null;
}

/**
 * Floor CPU per lead over the scenario's (both without the simulators): 1 when the scenario costs what its
 * floor does, 0.5 when twice as much. Less sensitive to the machine's other load than a ratio of rates.
 */
export function cpuRatio(scenario: ScenarioResult, floor: ScenarioResult): number | null {
  const perLead = ownCpuMs(scenario) / scenario.load.requests;
  const floorPerLead = ownCpuMs(floor) / floor.load.requests;
  return perLead > 0 && Number.isFinite(floorPerLead) ? round3(floorPerLead / perLead) : null;
}

/** The fan-out figures of one scenario run: rates, and CPU per buyer call, own and the simulators'. */
export function fanoutCost(result: FanoutResult): Record<string, unknown> {
  const { load, buyerCalls } = result;
  const perCall = (ms: number): number | null => (buyerCalls ? round3((ms * 1000) / buyerCalls) : null);
  return {
    leads_per_s: load.rps,
    buyer_calls: buyerCalls,
    buyer_calls_per_lead: load.requests ? Math.round((buyerCalls / load.requests) * 10) / 10 : null,
    processing_p50_ms: load.processingP50Ms ?? null,
    processing_p99_ms: load.processingP99Ms ?? null,
    cpu_ms: result.cpuMs,
    cpu_ms_per_lead: cpuMsPerLead(result),
    cpu_us_per_buyer_call: perCall(ownCpuMs(result)),
    simulator_cpu_us_per_buyer_call: perCall(simulatorCpuMs(result)),
    rss_mb: result.rssMb,
  };
}

/** CPU per buyer call of the scenario over its floor's (the bare client's): the target is at most 1.5. */
export function fanoutCallCostRatio(fanout: FanoutResult, floor: FanoutResult): number | null {
  if (!fanout.buyerCalls || !floor.buyerCalls) return null;
  const floorPerCall = ownCpuMs(floor) / floor.buyerCalls;
  return floorPerCall > 0 ? round3(ownCpuMs(fanout) / fanout.buyerCalls / floorPerCall) : null;
}
