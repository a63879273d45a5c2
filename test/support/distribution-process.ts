import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from './ports.js';
import { exited, type RunningProcess, startProcess, waitForProcess } from './source-process.js';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../services/distribution/src/main.ts');

export interface DistributionProcess {
  child: ChildProcess;
  /** stdout and stderr as they came. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  running: RunningProcess;
}

/** A distribution service as its own process on free ports, under `umask` when given. */
export async function spawnDistribution(
  env: Record<string, string>,
  options: { umask?: string } = {},
): Promise<DistributionProcess> {
  const [grpcPort] = await freePorts(1);
  const running = startProcess(
    ENTRY,
    { LEADFLOW_GRPC_PORT: String(grpcPort), LEADFLOW_METRICS_PORT: '0', LEADFLOW_LOG_LEVEL: 'info', ...env },
    options,
  );
  return { child: running.child, output: () => running.output.join(''), exited: exited(running), running };
}

/** Resolves once the service listens; throws with its output if it ends first. */
export function listening(service: DistributionProcess, timeoutMs = 60_000): Promise<void> {
  return waitForProcess(
    'the service to listen',
    service.running,
    () => service.output().includes('distribution service listening'),
    timeoutMs,
  );
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
