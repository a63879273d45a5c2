import { parseArgs } from 'node:util';
import { loadSimulatorConfig } from './config-file.js';
import { SimulatorConfigError } from './config-validation.js';
import { startSimulator } from './simulator.js';

const USAGE = 'usage: node services/simulator/dist/main.js --config FILE [--port N] [--host HOST]';

/**
 * Runs the buyer simulator as a process. Prints its base URL alone on the
 * first line of stdout (for scripts to read), and stops on SIGTERM or SIGINT.
 */
async function main(): Promise<void> {
  const values = readArgs();
  if (!values.config) throw new UsageError('--config is required');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');

  const config = await loadSimulatorConfig(values.config);
  const simulator = await startSimulator({
    host: values.host,
    port,
    endpoints: config.endpoints,
    seed: config.seed,
    leadKey: config.leadKey,
  });
  const stop = () => {
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('simulator: close failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Only now: a script that reads the URL may signal at once.
  process.stdout.write(`${simulator.url}\n`);
  console.error(
    `simulator: ${config.endpoints.length} endpoints, seed ${simulator.seed}, admin API at ${simulator.url}/_simulator/`,
  );
}

class UsageError extends Error {}

function readArgs(): { config?: string; port?: string; host?: string } {
  try {
    return parseArgs({
      options: { config: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } },
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`simulator: ${error.message}\n${USAGE}`);
  else if (error instanceof SimulatorConfigError) console.error(`simulator: ${error.message}`);
  else console.error('simulator: failed to start:', (error as Error)?.message ?? error);
  process.exit(1);
});
