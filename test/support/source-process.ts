import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { waitUntil } from './wait-until.js';

/** A leadflow entry point run from its TypeScript source, its stdout and stderr kept for failure messages. */
export interface RunningProcess {
  child: ChildProcess;
  output: string[];
}

export interface ProcessOptions {
  /** The file mode creation mask it runs under (as a shell sets it). */
  umask?: string;
  cwd?: string;
  /** Which of this process's environment variables it inherits; all by default. */
  inherits?: (name: string) => boolean;
}

/** `env` is added to what it inherits. */
export function startProcess(entry: string, env: Record<string, string>, options: ProcessOptions = {}): RunningProcess {
  const argv = [process.execPath, '--import', 'tsx', entry];
  const [command, ...args] =
    options.umask === undefined ? argv : ['/bin/sh', '-c', `umask ${options.umask} && exec "$@"`, 'sh', ...argv];
  const { inherits = () => true } = options;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => inherits(name)));
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  return { child, output };
}

/** Its exit code, once it has exited. */
export async function exited(running: RunningProcess): Promise<number | null> {
  if (running.child.exitCode !== null) return running.child.exitCode;
  const [code] = await once(running.child, 'exit');
  return code as number | null;
}

/** SIGTERM, then its exit code. */
export async function stopProcess(running: RunningProcess): Promise<number | null> {
  if (running.child.exitCode === null) running.child.kill('SIGTERM');
  return exited(running);
}

/** Waits until `ready`; fails at once, with the process's output, if the process exits first. */
export async function waitForProcess(
  what: string,
  running: RunningProcess,
  ready: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
): Promise<void> {
  try {
    await waitUntil(what, async () => running.child.exitCode !== null || (await ready()), timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${running.output.join('')}`);
  }
  if (running.child.exitCode !== null) throw new Error(`${what} exited: ${running.output.join('')}`);
}
