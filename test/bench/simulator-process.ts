import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EndpointConfig } from '@leadflow/simulator';
import { childEnv } from './child-env.js';
import { NodeProcess } from './node-process.js';
import { scripts } from './paths.js';
import { firstLineOf } from './ready.js';

/** What the simulator process is started with (its config file's content). */
export interface SimulatorSetup {
  seed: number;
  /** The request field that names a lead, for lead-keyed draws. */
  leadKey?: string;
  endpoints: EndpointConfig[];
}

/** Writes a simulator's config file into dir, under name; returns its path. */
export async function writeSimulatorConfig(dir: string, setup: SimulatorSetup, name = 'simulator'): Promise<string> {
  const configFile = path.join(dir, `${name}.json`);
  await writeFile(configFile, JSON.stringify(setup));
  return configFile;
}

/** The buyer simulator as its own process, on a port of its choosing. */
export function simulatorProcess(configFile: string, name = 'simulator'): NodeProcess {
  return new NodeProcess(name, scripts.simulator, childEnv({}), ['--config', configFile, '--port', '0']);
}

/** The simulator's base URL, which it prints alone on its first stdout line once it listens. */
export async function simulatorUrl(simulator: NodeProcess, processes: NodeProcess[]): Promise<string> {
  const line = await firstLineOf(simulator, processes);
  if (!/^https?:\/\/\S+$/.test(line)) throw new Error(`simulator printed "${line}" where its URL was expected`);
  return line;
}
