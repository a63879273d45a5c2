import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// Resolved from this compiled file: dist/test/bench/paths.js, and the packages' compiled entries.
const fromHere = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const entryOf = (app: string): string => createRequire(import.meta.url).resolve(`@leadflow/${app}/main`);

/** The compiled entry points the bench spawns. */
export const scripts = {
  floorServer: fromHere('./floor/server.js'),
  floorGateway: fromHere('./floor/gateway.js'),
  distribution: entryOf('distribution'),
  gateway: entryOf('gateway'),
  simulator: entryOf('simulator'),
};
