import { type ChildProcess, spawn } from 'node:child_process';
import { waitUntil } from './wait-until.js';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process, its stdout and stderr kept for assertions and failure messages. */
export interface RunningProcess {
  child: ChildProcess;
  /** stdout and stderr interleaved, as they came. */
  output: string[];
  stdout: string[];
  stderr: string[];
  /** Resolves once it has exited and all its output is read; `code` -1 when it could not be started. */
  ended: Promise<ExitStatus>;
}

export interface ProcessOptions {
  /** Command-line arguments after the entry point. */
  args?: readonly string[];
  /** The file mode creation mask it runs under (as a shell sets it). */
  umask?: string;
  cwd?: string;
  /** Which of this process's environment variables it inherits; all by default. */
  inherits?: (name: string) => boolean;
  /** Written to its standard input, which is then closed; no standard input when left out. */
  stdin?: string;
}

/** Every child still running; killed if the test process exits first (mocha --exit, a failed hook). */
const living = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of living) child.kill('SIGKILL');
});

/** Keeps the output of a child spawned with piped stdout and stderr, and tells when it has ended. */
export function watchProcess(child: ChildProcess): RunningProcess {
  const running: RunningProcess = {
    child,
    output: [],
    stdout: [],
    stderr: [],
    ended: new Promise((resolve) => {
      // 'close', not 'exit': the output is whole only once its pipes have closed.
      child.once('close', (code, signal) => resolve({ code, signal }));
      // A binary that cannot be started never exits: report it as a failed exit.
      child.once('error', () => resolve({ code: -1, signal: null }));
    }),
  };
  living.add(child);
  void running.ended.then(() => living.delete(child));
  const keep = (into: string[]) => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    into.push(text);
    running.output.push(text);
  };
  child.stdout?.on('data', keep(running.stdout));
  child.stderr?.on('data', keep(running.stderr));
  return running;
}

/**
 * A leadflow entry point run from its TypeScript source (tsx, and the packages' `source` export
 * condition, so that it imports other packages' sources too); `env` is added to what it inherits.
 */
export function startProcess(entry: string, env: Record<string, string>, options: ProcessOptions = {}): RunningProcess {
  const argv = [process.execPath, '--conditions=source', '--import', 'tsx', entry, ...(options.args ?? [])];
  const [command, ...args] =
    options.umask === undefined ? argv : ['/bin/sh', '-c', `umask ${options.umask} && exec "$@"`, 'sh', ...argv];
  const { inherits = () => true } = options;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => inherits(name)));
  const child = spawn(command!, args, {
    cwd: options.cwd,
    env: { ...inherited, ...env },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  return watchProcess(child);
}

/** Whether it has neither exited nor been ended by a signal. */
export function isRunning(running: RunningProcess): boolean {
  return running.child.exitCode === null && running.child.signalCode === null;
}

/** Its exit code, once it has exited and its output is read. */
export async function exited(running: RunningProcess): Promise<number | null> {
  return (await running.ended).code;
}

/** SIGTERM, then (given `graceMs`) SIGKILL if it has not exited by then; its exit code once it has. */
export async function stopProcess(running: RunningProcess, graceMs?: number): Promise<number | null> {
  if (isRunning(running)) running.child.kill('SIGTERM');
  const timer = graceMs === undefined ? undefined : setTimeout(() => running.child.kill('SIGKILL'), graceMs);
  try {
    return await exited(running);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGKILL (a crash), resolving once it has ended. */
export async function killProcess(running: RunningProcess): Promise<ExitStatus> {
  if (isRunning(running)) running.child.kill('SIGKILL');
  return running.ended;
}

/** Waits until `ready`; fails at once, with the process's output, if the process exits first. */
export async function waitForProcess(
  what: string,
  running: RunningProcess,
  ready: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
): Promise<void> {
  try {
    await waitUntil(what, async () => !isRunning(running) || (await ready()), timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${running.output.join('')}`);
  }
  if (!isRunning(running)) throw new Error(`${what} exited: ${running.output.join('')}`);
}
