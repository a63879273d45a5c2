import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DEMO_KEY_FILE, type HeldLock } from '@leadflow/distribution';
import { ConfigError, loadDistributionConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import { isReadyMessage } from '@leadflow/service-kit/ready-signal';
import { type LeadflowService, serviceNodeFlags } from '@leadflow/service-kit/service-node-flags';
import { demoMarketConfigPath } from '@leadflow/simulator';
import { reachableBaseUrl, startBanner } from './banner.js';
import { ensureMetricsToken } from './metrics-token.js';
import { AlreadyRunning, claimDataDir } from './running-instance.js';

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

interface ChildSpec {
  /** How the launcher's messages name it. */
  name: string;
  entry: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  nodeFlags?: readonly string[];
  /** Where it listens and the setting that moves it, for the message when it does not start. */
  listensOn?: string;
}

const children: ChildProcess[] = [];
/** The children that said they serve. */
const started = new Set<ChildProcess>();
let stopping = false;
let instanceLock: HeldLock | undefined;

/**
 * Starts a child with an IPC channel: a service says it serves over it (announceReady), the simulator
 * on its stdout.
 */
function startChild(spec: ChildSpec): ChildProcess {
  const { name, entry, args = [], env = process.env, nodeFlags = [] } = spec;
  const child = spawn(process.execPath, [...nodeFlags, ...process.execArgv, entry, ...args], {
    stdio: ['ignore', args.length > 0 ? 'pipe' : 'inherit', 'inherit', 'ipc'],
    env,
  });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    const how = signal ?? `exit code ${code}`;
    const what = started.has(child)
      ? `the ${name} process ended (${how})`
      : `the ${name}${spec.listensOn ? ` (${spec.listensOn})` : ''} did not start (${how})`;
    console.error(`leadflow: ${what}; stopping`);
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
  instanceLock?.release();
  process.exit(exitCode);
}

/** Settles with `work`, or fails once the start has taken too long. */
async function withinStartTimeout<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once the child itself says it serves. Not "its port answers": a port may be answered by
 * another instance, with this child failing to bind it.
 */
async function readySignal(name: string, child: ChildProcess): Promise<void> {
  await withinStartTimeout(
    `the ${name}`,
    new Promise<void>((resolve) => {
      const onMessage = (message: unknown) => {
        if (!isReadyMessage(message)) return;
        child.off('message', onMessage);
        resolve();
      };
      child.on('message', onMessage);
    }),
  );
  started.add(child);
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

/** Starts the demo market's simulator and resolves with the URL it prints first, once it serves. */
async function startDemoMarket(): Promise<string> {
  const name = 'buyer simulator';
  const simulator = startChild({
    name,
    entry: SIMULATOR_ENTRY,
    args: ['--config', demoMarketConfigPath(), '--host', '127.0.0.1', '--port', String(SIMULATOR_PORT)],
    listensOn: `127.0.0.1:${SIMULATOR_PORT}, LEADFLOW_SIMULATOR_PORT`,
  });
  const [line] = (await withinStartTimeout(
    `the ${name}`,
    once(createInterface({ input: simulator.stdout! }), 'line'),
  )) as [string];
  started.add(simulator);
  simulator.stdout!.resume();
  return line.trim();
}

async function main(): Promise<void> {
  const distribution = loadDistributionConfig();
  const gateway = loadGatewayConfig();
  const base = reachableBaseUrl(gateway.httpHost, gateway.httpPort);
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  instanceLock = claimDataDir(distribution.dataDir, {
    gateway: base,
    httpPort: gateway.httpPort,
    grpcPort: distribution.grpcPort,
    metricsPort: distribution.metricsPort,
    simulatorPort: distribution.databaseUrl ? undefined : SIMULATOR_PORT,
  });

  const demoMarket = distribution.databaseUrl ? undefined : await startDemoMarket();
  // The services' heap sizing, unless the operator sizes the heap themselves (node flags or NODE_OPTIONS).
  const serviceFlags = (service: LeadflowService) =>
    serviceNodeFlags(service, process.execArgv, process.env.NODE_OPTIONS);
  const demoKeyFile = path.join(distribution.dataDir, DEMO_KEY_FILE);
  const demoKeyExisted = await exists(demoKeyFile);
  const distributionName = 'distribution service';
  const distributionProcess = startChild({
    name: distributionName,
    entry: DISTRIBUTION_ENTRY,
    env: demoMarket ? { ...process.env, LEADFLOW_DEMO_SIMULATOR_URL: demoMarket } : process.env,
    nodeFlags: serviceFlags('distribution'),
  });
  await readySignal(distributionName, distributionProcess);
  // /metrics is never open on `npm start`: without LEADFLOW_METRICS_TOKEN the gateway gets one kept in the data dir.
  const metricsToken = gateway.metricsToken ? undefined : await ensureMetricsToken(distribution.dataDir);
  const gatewayProcess = startChild({
    name: 'gateway',
    entry: GATEWAY_ENTRY,
    env: metricsToken ? { ...process.env, LEADFLOW_METRICS_TOKEN: metricsToken.token } : process.env,
    nodeFlags: serviceFlags('gateway'),
  });
  await readySignal('gateway', gatewayProcess);
  // The gateway is this one's now that it listens: its readiness says it reaches the distribution service.
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
    dataDir: distribution.dataDir,
    storage: distribution.databaseUrl ? 'MySQL (DATABASE_URL)' : `embedded SQLite in ${distribution.dataDir}`,
    demoMarket,
    demoKey,
    metricsTokenFile: metricsToken?.file,
  });
  console.log(banner.join('\n'));
}

main().catch((error: unknown) => {
  if (error instanceof AlreadyRunning) console.error(error.message);
  else
    console.error(`leadflow: ${error instanceof ConfigError ? error.message : ((error as Error)?.message ?? error)}`);
  void stop(1);
});
