import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DEMO_KEY_FILE } from '@leadflow/distribution';
import { ConfigError, loadDistributionConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import { type LeadflowService, serviceNodeFlags } from '@leadflow/service-kit/service-node-flags';
import { demoMarketConfigPath } from '@leadflow/simulator';
import { reachableBaseUrl, startBanner } from './banner.js';
import { ensureMetricsToken } from './metrics-token.js';

/**
 * `npm start`: runs a distribution service and a gateway as two processes on
 * this machine (and, on the embedded default, a buyer simulator playing the
 * demo market's lenders), prints how to send the first lead, and stops them
 * together.
 */
// Resolved as this process resolves its imports: compiled JavaScript, or (under tsx, with the
// `source` condition, as the tests run it) the TypeScript sources.
const entryOf = (app: string): string => createRequire(import.meta.url).resolve(`@leadflow/${app}/main`);
const DISTRIBUTION_ENTRY = entryOf('distribution');
const GATEWAY_ENTRY = entryOf('gateway');
const SIMULATOR_ENTRY = entryOf('simulator');
const START_TIMEOUT_MS = 60_000;
const SIMULATOR_PORT = Number(process.env.LEADFLOW_SIMULATOR_PORT || 4010);

const children: ChildProcess[] = [];
let stopping = false;

function startChild(
  name: string,
  entry: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  nodeFlags: readonly string[] = [],
): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, ...process.execArgv, entry, ...args], {
    stdio: ['ignore', args.length > 0 ? 'pipe' : 'inherit', 'inherit'],
    env,
  });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`leadflow: the ${name} process ended (${signal ?? `exit code ${code}`}); stopping`);
    void stop(1);
  });
  children.push(child);
  return child;
}

async function stop(exitCode: number): Promise<void> {
  stopping = true;
  // The gateway first, so that no new lead reaches a distribution service that is draining.
  for (const child of [...children].reverse()) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  process.exit(exitCode);
}

function portAccepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, ready: () => Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + START_TIMEOUT_MS;
  while (!(await ready())) {
    if (stopping) return;
    if (Date.now() > giveUpAt) throw new Error(`${what} did not start within ${START_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function gatewayReady(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/health/ready`)).ok;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Starts the demo market's simulator and resolves with the URL it prints first. */
async function startDemoMarket(): Promise<string> {
  const simulator = startChild('buyer simulator', SIMULATOR_ENTRY, [
    '--config',
    demoMarketConfigPath(),
    '--host',
    '127.0.0.1',
    '--port',
    String(SIMULATOR_PORT),
  ]);
  const [line] = (await once(createInterface({ input: simulator.stdout! }), 'line')) as [string];
  simulator.stdout!.resume();
  return line.trim();
}

async function main(): Promise<void> {
  const distribution = loadDistributionConfig();
  const gateway = loadGatewayConfig();
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  const demoMarket = distribution.databaseUrl ? undefined : await startDemoMarket();
  // The services' heap sizing, unless the operator sizes the heap themselves (node flags or NODE_OPTIONS).
  const serviceFlags = (service: LeadflowService) =>
    serviceNodeFlags(service, process.execArgv, process.env.NODE_OPTIONS);
  const demoKeyFile = path.join(distribution.dataDir, DEMO_KEY_FILE);
  const demoKeyExisted = await exists(demoKeyFile);
  startChild(
    'distribution service',
    DISTRIBUTION_ENTRY,
    [],
    demoMarket ? { ...process.env, LEADFLOW_DEMO_SIMULATOR_URL: demoMarket } : process.env,
    serviceFlags('distribution'),
  );
  await waitFor('the distribution service', () => portAccepts('127.0.0.1', distribution.grpcPort));
  // /metrics is never open on `npm start`: without LEADFLOW_METRICS_TOKEN the gateway gets one kept in the data dir.
  const metricsToken = gateway.metricsToken ? undefined : await ensureMetricsToken(distribution.dataDir);
  startChild(
    'gateway',
    GATEWAY_ENTRY,
    [],
    metricsToken ? { ...process.env, LEADFLOW_METRICS_TOKEN: metricsToken.token } : process.env,
    serviceFlags('gateway'),
  );
  const base = reachableBaseUrl(gateway.httpHost, gateway.httpPort);
  await waitFor('the gateway', () => gatewayReady(base));
  if (stopping) return;

  // Printed on the start that created it only; later starts point at the file.
  const createdKey = demoKeyExisted
    ? undefined
    : await readFile(demoKeyFile, 'utf8').then(
        (text) => text.trim(),
        () => undefined,
      );
  const demoKey = demoMarket && (demoKeyExisted || createdKey) ? { file: demoKeyFile, createdKey } : undefined;
  const banner = startBanner({
    httpHost: gateway.httpHost,
    httpPort: gateway.httpPort,
    grpcPort: distribution.grpcPort,
    storage: distribution.databaseUrl ? 'MySQL (DATABASE_URL)' : `embedded SQLite in ${distribution.dataDir}`,
    demoMarket,
    demoKey,
    metricsTokenFile: metricsToken?.file,
  });
  console.log(banner.join('\n'));
}

main().catch((error: unknown) => {
  console.error(`leadflow: ${error instanceof ConfigError ? error.message : ((error as Error)?.message ?? error)}`);
  void stop(1);
});
