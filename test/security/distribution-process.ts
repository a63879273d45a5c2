import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../support/ports.js';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../services/distribution/src/main.ts');

export interface DistributionProcess {
  child: ChildProcess;
  /** stdout and stderr as they came. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** A distribution service as its own process on free ports, under `umask` when given. */
export async function spawnDistribution(
  env: Record<string, string>,
  options: { umask?: string } = {},
): Promise<DistributionProcess> {
  const [grpcPort] = await freePorts(1);
  const argv = [process.execPath, '--import', 'tsx', ENTRY];
  const [command, ...args] =
    options.umask === undefined ? argv : ['/bin/sh', '-c', `umask ${options.umask} && exec "$@"`, 'sh', ...argv];
  const child = spawn(command!, args, {
    env: {
      ...process.env,
      LEADFLOW_GRPC_PORT: String(grpcPort),
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output: () => chunks.join(''), exited };
}

/** Resolves once the service listens; throws with its output if it ends first. */
export async function listening(service: DistributionProcess, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!service.output().includes('distribution service listening')) {
    if (service.child.exitCode !== null)
      throw new Error(`the service ended (${service.child.exitCode}): ${service.output()}`);
    if (Date.now() > giveUpAt) throw new Error(`the service did not start: ${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Its exit code and what it wrote, once it has ended on its own. */
export async function endsOnItsOwn(service: DistributionProcess): Promise<{ code: number | null; output: string }> {
  const code = await service.exited;
  return { code, output: service.output() };
}

export async function stop(service: DistributionProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill(signal);
  await service.exited;
}
