import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type CpuSource, processCpuMs } from './cpu-meter.js';

const TAIL_CHARS = 8 * 1024;
const STOP_GRACE_MS = 5_000;

/**
 * A Node script run as a child process, with the tail of its output kept for when it fails. Not the tests'
 * startProcess: the bench runs built JavaScript without tsx, whose loader would count in the CPU and memory
 * it measures, passes the environment whole, keeps only a bounded tail of output over long runs, and can
 * add node options (BENCH_NODE_ARGS) to profile.
 */
export class NodeProcess implements CpuSource {
  readonly exited: Promise<void>;
  /** The first line the process writes to stdout, or undefined when it exits without one. */
  readonly firstLine: Promise<string | undefined>;
  private readonly child: ChildProcess;
  private stdout = '';
  private stderr = '';
  private exitDescription: string | undefined;

  constructor(
    readonly name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    args: readonly string[] = [],
    nodeFlags: readonly string[] = [],
  ) {
    // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the processes under test; it
    // comes after nodeFlags, so that it can override them (node and V8 take a flag's last value).
    const benchArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    this.child = spawn(process.execPath, [...nodeFlags, ...benchArgs, script, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let firstLineOut: (line: string | undefined) => void = () => {};
    this.firstLine = new Promise((resolve) => (firstLineOut = resolve));
    let stdoutSeen = '';
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout = tail(this.stdout + chunk);
      if (stdoutSeen.includes('\n')) return;
      stdoutSeen += chunk;
      const end = stdoutSeen.indexOf('\n');
      if (end >= 0) firstLineOut(stdoutSeen.slice(0, end).trim());
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = tail(this.stderr + chunk)));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.exitDescription = `failed to start: ${error.message}`;
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.exitDescription = signal ? `killed by ${signal}` : `exited with code ${code}`;
        resolve();
      });
    });
    // Resolving after the line was seen changes nothing.
    void this.exited.then(() => firstLineOut(undefined));
  }

  get running(): boolean {
    return this.exitDescription === undefined;
  }

  /** CPU time used so far (user + system), in ms; read it before stopping the process. */
  cpuMs(): number {
    return processCpuMs(this.child.pid!);
  }

  /** Peak resident set size so far (VmHWM), in MB; read it before stopping the process. */
  peakRssMb(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
    return Math.round((kb / 1024) * 10) / 10;
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace period; resolves once it has exited. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const grace = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(grace);
  }

  /** Its state and last output, for a failure message. */
  report(): string {
    const lines = [`${this.name} (pid ${this.child.pid ?? '-'}): ${this.exitDescription ?? 'running'}`];
    lines.push(`--- ${this.name} stderr ---`, this.stderr.trimEnd() || '(empty)');
    if (this.stdout.trim()) lines.push(`--- ${this.name} stdout ---`, this.stdout.trimEnd());
    return lines.join('\n');
  }
}

/** A scenario that could not run; its message carries the processes' state and output. */
export class ScenarioFailure extends Error {
  constructor(reason: string, processes: NodeProcess[]) {
    super([reason, ...processes.map((p) => p.report())].join('\n'));
  }
}

function tail(text: string): string {
  return text.length > TAIL_CHARS ? text.slice(-TAIL_CHARS) : text;
}
