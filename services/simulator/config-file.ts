import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parseSimulatorConfig, type SimulatorConfig, SimulatorConfigError } from './config-validation.js';

/** Reads `{ seed?, endpoints }` from a JSON or YAML file (JSON is YAML). */
export async function loadSimulatorConfig(file: string): Promise<SimulatorConfig> {
  const text = await readFile(file, 'utf8');
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new SimulatorConfigError([`${file}: neither JSON nor YAML: ${(error as Error).message}`]);
  }
  return parseSimulatorConfig(value);
}

/** The demo market's config file, from the sources or from dist/ (tsc does not copy YAML). */
export function demoMarketConfigPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.join(here, 'demo-market.yaml'),
    path.join(here, '../../../services/simulator/demo-market.yaml'),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`demo-market.yaml not found in ${candidates.join(' or ')}`);
  return found;
}
