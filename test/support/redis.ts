import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { tcpAccepts } from './ports.js';
import { recordSkippedSuite } from './skipped-suites.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_REQUIRED = process.env.LEADFLOW_REQUIRE_REDIS === '1';

/** Host and port only: a REDIS_URL may carry a password. */
function describeUrl(url: string): string {
  return new URL(url).host;
}

/**
 * For a suite's `before` hook: skips the suite with a message naming it when its Redis is not
 * available, or fails it when LEADFLOW_REQUIRE_REDIS=1 (CI).
 */
export function skipUnlessAvailable(context: Mocha.Context, available: boolean, what: string): void {
  if (available) return;
  const suite = context.test?.parent?.fullTitle() ?? 'rate-limit Redis suite';
  if (REDIS_REQUIRED) throw new Error(`${suite}: ${what} (LEADFLOW_REQUIRE_REDIS=1)`);
  recordSkippedSuite(suite, what);
  context.skip();
}

export async function requireSharedRedis(context: Mocha.Context): Promise<void> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  let available = true;
  try {
    await probe.connect();
    await probe.ping();
  } catch {
    available = false;
  } finally {
    probe.disconnect();
  }
  skipUnlessAvailable(context, available, `no Redis reachable at ${describeUrl(REDIS_URL)}`);
}

/** A throwaway redis-server this test owns, so it can be killed without touching the shared one. */
export class RedisServerProcess {
  private child: ChildProcess | undefined;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Resolves false when redis-server cannot be run here (not installed). */
  async start(): Promise<boolean> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    // once() rejects on the 'error' event, which is how a missing binary shows up.
    const spawned = await once(child, 'spawn').then(
      () => true,
      () => false,
    );
    if (!spawned) return false;
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await tcpAccepts(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`redis-server on port ${this.port} did not start`);
      }
      await sleep(20);
    }
    return true;
  }

  /** SIGKILL: the limiter sees a crash, not a polite shutdown. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export const WARN = 40;
export const INFO = 30;

/** A real pino logger whose lines land in memory. */
export function capturingLogger(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
}
