import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, tcpAccepts } from '../../support/ports.js';
import {
  type ExitStatus,
  isRunning,
  killProcess,
  type RunningProcess,
  startProcess,
  stopProcess,
} from '../../support/source-process.js';
import { waitUntil } from '../../support/wait-until.js';

/** Where the entry points live, relative to the repository root (mocha runs from there). */
export const DISTRIBUTION_ENTRY = 'services/distribution/src/main.ts';
export const GATEWAY_ENTRY = 'gateway/src/main.ts';

/** Variables a developer's shell may carry that would change what the children connect to. */
const CLEARED_ENV = [
  'DATABASE_URL',
  'REDIS_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_TRACES_EXPORTER',
  'LEADFLOW_DEMO_SIMULATOR_URL',
  'LEADFLOW_DISTRIBUTION_ADDRESS',
  'LEADFLOW_HTTP_PORT',
  'LEADFLOW_GRPC_PORT',
  'LEADFLOW_ADMIN_TOKEN',
  'LEADFLOW_PII_KEYS',
  'LEADFLOW_HMAC_KEY',
];

export type { ExitStatus };

/** A child process whose output the test keeps, and whose end it can await. */
export class ChildHandle {
  readonly output: string[];
  readonly exited: Promise<ExitStatus>;
  readonly child: ChildProcess;

  constructor(
    readonly name: string,
    readonly run: RunningProcess,
  ) {
    this.child = run.child;
    this.output = run.output;
    this.exited = run.ended;
  }

  get running(): boolean {
    return isRunning(this.run);
  }

  text(): string {
    return this.output.join('');
  }

  /** The JSON log lines (pino) the process wrote, in order. */
  logLines(): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    for (const line of this.text().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line cut by the end of the output
      }
    }
    return lines;
  }

  /** The last `lines` lines of output, for a failure message. */
  tail(lines = 30): string {
    return this.text().split('\n').slice(-lines).join('\n');
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 20_000): Promise<ExitStatus> {
    await stopProcess(this.run, graceMs);
    return this.exited;
  }

  async kill(): Promise<void> {
    await killProcess(this.run);
  }

  /** Whether the process is stopped by a signal (SIGSTOP): state T in /proc (Linux). */
  async stopped(): Promise<boolean> {
    if (!this.running || this.child.pid === undefined) return false;
    const stat = await readFile(`/proc/${this.child.pid}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
  }
}

/** A leadflow entry point from source, with none of the settings of CLEARED_ENV this process may have. */
export function startNodeProcess(name: string, entry: string, env: Record<string, string>): ChildHandle {
  return new ChildHandle(name, startProcess(entry, env, { inherits: (variable) => !CLEARED_ENV.includes(variable) }));
}

export interface DistributionProcess {
  handle: ChildHandle;
  port: number;
  address: string;
}

export interface GatewayProcess {
  handle: ChildHandle;
  port: number;
  baseUrl: string;
}

/**
 * A distribution service as a real process (`node --import tsx services/distribution/src/main.ts`);
 * resolves once its gRPC port accepts connections (after migrations).
 */
export async function startDistributionProcess(
  name: string,
  env: Record<string, string>,
): Promise<DistributionProcess> {
  const port = await freePort();
  const handle = startNodeProcess(name, DISTRIBUTION_ENTRY, {
    LEADFLOW_GRPC_HOST: '127.0.0.1',
    LEADFLOW_GRPC_PORT: String(port),
    // A free port: several services on one machine must not all want the default 9464.
    LEADFLOW_METRICS_PORT: '0',
    ...env,
  });
  await waitUntil(
    `${name} gRPC port`,
    async () => {
      if (!handle.running) throw new Error(`${name} exited during start:\n${handle.tail()}`);
      return tcpAccepts(port);
    },
    60_000,
  ).catch(async (error: unknown) => {
    await handle.kill();
    throw new Error(`${(error as Error).message}\n--- ${name} output ---\n${handle.tail()}`);
  });
  return { handle, port, address: `127.0.0.1:${port}` };
}

/** A gateway as a real process, pointed at one distribution service; resolves once it is ready. */
export async function startGatewayProcess(
  name: string,
  distributionAddress: string,
  env: Record<string, string>,
): Promise<GatewayProcess> {
  const port = await freePort();
  const handle = startNodeProcess(name, GATEWAY_ENTRY, {
    LEADFLOW_HTTP_HOST: '127.0.0.1',
    LEADFLOW_HTTP_PORT: String(port),
    LEADFLOW_DISTRIBUTION_ADDRESS: distributionAddress,
    ...env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil(
    `${name} readiness`,
    async () => {
      if (!handle.running) throw new Error(`${name} exited during start:\n${handle.tail()}`);
      return (await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok;
    },
    60_000,
  ).catch(async (error: unknown) => {
    await handle.kill();
    throw new Error(`${(error as Error).message}\n--- ${name} output ---\n${handle.tail()}`);
  });
  return { handle, port, baseUrl };
}

export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { path: dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs every cleanup step even when one fails; rethrows the first failure at the end. */
export async function cleanUp(steps: (() => Promise<unknown> | unknown)[]): Promise<void> {
  let first: unknown;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}
