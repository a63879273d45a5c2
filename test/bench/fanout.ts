import type { EndpointConfig } from '@leadflow/simulator';
import type { SimulatorBuyer } from './buyer-document.js';
import type { LoadSettings } from './load.js';
import type { NodeProcess } from './node-process.js';
import { simulatorProcess, simulatorUrl, writeSimulatorConfig } from './simulator-process.js';

/**
 * The fan-out scenario's market: a big ping tree. 100 ping-post lenders (BENCH_FANOUT_BUYERS) in one tier, so every lead is
 * pinged to all of them, answering in JSON after 40 to 300 ms (about 120 on average), half of them
 * bidding, most accepting the posts they bid on. They are spread over several simulator processes so that
 * the simulator is not what limits the run.
 */
/** A fan-out run's load, and the size of its tree. */
export interface FanoutSettings extends LoadSettings {
  fanoutBuyers: number;
}

/** The lenders of the tree unless BENCH_FANOUT_BUYERS says otherwise. */
export const FANOUT_DEFAULT_BUYERS = 100;
export const FANOUT_SIMULATORS = 4;
export const FANOUT_SEED = 20261123;
/** leadflow's overall deadline per lead (LEADFLOW_SELL_DEADLINE_MS). */
export const FANOUT_SELL_DEADLINE_MS = 2_500;
/** Per buyer call. */
export const FANOUT_BUYER_TIMEOUT_MS = 1_000;

const LATENCY_MS = { normal: { mean: 120, sd: 50, min: 40, max: 300 } };

/** The names of a tree of `count` lenders, e.g. fan-007. */
function lenderNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `fan-${String(i).padStart(3, '0')}`);
}

/** The endpoints of one lender: a ping and its post. */
function lenderEndpoints(name: string): EndpointConfig[] {
  return [
    {
      path: `/${name}/ping`,
      kind: 'ping',
      format: 'json',
      bid: { uniform: [15, 60] },
      acceptRate: 0.5,
      latencyMs: LATENCY_MS,
      pingTtlMs: 10_000,
    },
    {
      path: `/${name}/post`,
      kind: 'post',
      ping: `/${name}/ping`,
      format: 'json',
      acceptRate: 0.85,
      latencyMs: LATENCY_MS,
    },
  ];
}

/** The lenders simulator `index` (0-based) runs in a tree of `count`: every FANOUT_SIMULATORS-th one. */
export function lendersOf(index: number, count: number): string[] {
  return lenderNames(count).filter((_, i) => i % FANOUT_SIMULATORS === index);
}

export function endpointsOf(lenders: readonly string[]): EndpointConfig[] {
  return lenders.flatMap(lenderEndpoints);
}

/** Each lender as a leadflow buyer priced at its bid, paying publishers 80% of it, caps off. */
export function fanoutBuyers(lenders: readonly string[]): SimulatorBuyer[] {
  return lenders.map((name) => ({
    name: `fanout-${name}`,
    tier: 1,
    postPath: `/${name}/post`,
    timeoutMs: FANOUT_BUYER_TIMEOUT_MS,
    pricing: { type: 'bid' },
    payout: { revenueShare: 0.8 },
  }));
}

/** The started simulators, by index, with the URL each listens on. */
export interface FanoutSimulators {
  processes: NodeProcess[];
  urls: string[];
}

/** Starts the simulators (each with its share of a tree of `count` lenders) and waits for their URLs. */
export async function startFanoutSimulators(dir: string, count: number): Promise<FanoutSimulators> {
  const processes: NodeProcess[] = [];
  for (let i = 0; i < FANOUT_SIMULATORS; i++) {
    const name = `simulator_${i + 1}`;
    const config = await writeSimulatorConfig(
      dir,
      { seed: FANOUT_SEED + i, endpoints: endpointsOf(lendersOf(i, count)) },
      name,
    );
    processes.push(simulatorProcess(config, name));
  }
  const urls = await Promise.all(processes.map((simulator) => simulatorUrl(simulator, processes)));
  return { processes, urls };
}
