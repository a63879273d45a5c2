import { readFile } from 'node:fs/promises';
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

/** The demo market's config file, at the package's root: one level above src/ and dist/. */
export function demoMarketConfigPath(): string {
  return fileURLToPath(new URL('../demo-market.yaml', import.meta.url));
}
