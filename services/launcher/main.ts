import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, dataDir, loadDistributionConfig, loadGatewayConfig } from '../common/config.js';
import { demoMarketConfigPath } from '../simulator/index.js';

/**
 * `npm start`: runs a distribution service and a gateway as two processes on
 * this machine (and, on the embedded default, a buyer simulator playing the
 * demo market's lenders), prints how to send the first lead, and stops them
 * together.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const DISTRIBUTION_ENTRY = path.join(here, '../distribution/src/main.js');
const GATEWAY_ENTRY = path.join(here, '../../gateway/src/main.js');
const SIMULATOR_ENTRY = path.join(here, '../simulator/main.js');
const START_TIMEOUT_MS = 60_000;
const SIMULATOR_PORT = Number(process.env.LEADFLOW_SIMULATOR_PORT || 4010);

const children: ChildProcess[] = [];
let stopping = false;

function startChild(name: string, entry: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', args.length > 0 ? 'pipe' : 'inherit', 'inherit'], env });
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

async function gatewayReady(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok;
  } catch {
    return false;
  }
}

async function demoKey(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    return (await readFile(path.join(dataDir(env), 'demo-key.txt'), 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** Starts the demo market's simulator and resolves with the URL it prints first. */
async function startDemoMarket(): Promise<string> {
  const simulator = startChild('buyer simulator', SIMULATOR_ENTRY, ['--config', demoMarketConfigPath(), '--host', '127.0.0.1', '--port', String(SIMULATOR_PORT)]);
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
  startChild('distribution service', DISTRIBUTION_ENTRY, [], demoMarket ? { ...process.env, LEADFLOW_DEMO_SIMULATOR_URL: demoMarket } : process.env);
  await waitFor('the distribution service', () => portAccepts('127.0.0.1', distribution.grpcPort));
  startChild('gateway', GATEWAY_ENTRY);
  await waitFor('the gateway', () => gatewayReady(gateway.httpPort));
  if (stopping) return;

  const base = `http://127.0.0.1:${gateway.httpPort}`;
  const key = distribution.databaseUrl ? undefined : await demoKey(process.env);
  console.log(`\nleadflow is running: gateway ${base}, distribution service 127.0.0.1:${distribution.grpcPort}`);
  console.log(`storage: ${distribution.databaseUrl ? 'MySQL (DATABASE_URL)' : `embedded SQLite in ${distribution.dataDir}`}`);
  if (demoMarket) console.log(`demo lenders: a buyer simulator at ${demoMarket} (services/simulator/demo-market.yaml)`);
  if (key) {
    console.log(`demo publisher key (also in ${path.join(distribution.dataDir, 'demo-key.txt')}): ${key}`);
    console.log(`try: curl -s -X POST ${base}/api/intake/${key} -H 'Content-Type: application/json' -d @test/fixtures/demo-lead.json`);
  }
  console.log('stop with Ctrl-C\n');
}

main().catch((error: unknown) => {
  console.error(`leadflow: ${error instanceof ConfigError ? error.message : ((error as Error)?.message ?? error)}`);
  void stop(1);
});
