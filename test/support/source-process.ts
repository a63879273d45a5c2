import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A leadflow entry point run from its TypeScript source, its stdout and stderr kept for failure messages. */
export interface RunningProcess {
  child: ChildProcess;
  output: string[];
}

export function startProcess(entry: string, env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...env },
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
