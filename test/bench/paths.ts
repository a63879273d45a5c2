import { fileURLToPath } from 'node:url';

// Resolved from this compiled file: dist/test/bench/paths.js.
const fromHere = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/** The compiled entry points the bench spawns. */
export const scripts = {
  floorServer: fromHere('./floor/server.js'),
  floorGateway: fromHere('./floor/gateway.js'),
  distribution: fromHere('../../services/distribution/src/main.js'),
  gateway: fromHere('../../gateway/src/main.js'),
  simulator: fromHere('../../services/simulator/main.js'),
};
