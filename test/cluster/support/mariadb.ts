import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createConnection, createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import { freePort } from '../../support/ports.js';
import { recordSkippedSuite } from '../../support/skipped-suites.js';
import { watchProcess } from '../../support/source-process.js';
import { MYSQL_SERVER_URL } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait-until.js';
import { ChildHandle } from './processes.js';

export { MYSQL_SERVER_URL };

const REQUIRE_MYSQL = process.env.LEADFLOW_REQUIRE_MYSQL === '1';
const REQUIRE_REDIS = process.env.LEADFLOW_REQUIRE_REDIS === '1';

/**
 * For a suite's `before` hook: when what it needs is missing, skip the suite and name it at the
 * end of the run, or fail when the matching LEADFLOW_REQUIRE_* variable says CI needs it.
 */
export function needOrSkip(
  context: Mocha.Context,
  available: boolean,
  reason: string,
  kind: 'mysql' | 'redis' = 'mysql',
): void {
  if (available) return;
  const suite = context.test?.parent?.fullTitle() ?? 'cluster suite';
  const required = kind === 'mysql' ? REQUIRE_MYSQL : REQUIRE_REDIS;
  if (required) throw new Error(`${suite}: ${reason} (LEADFLOW_REQUIRE_${kind.toUpperCase()}=1)`);
  recordSkippedSuite(suite, reason);
  context.skip();
}

export async function sharedMysqlReachable(): Promise<boolean> {
  try {
    const connection = await createConnection({ uri: MYSQL_SERVER_URL, connectTimeout: 2000 });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

/** A database the test may read directly: the figures the assertions are about. */
export interface InspectedDatabase {
  name: string;
  /** mysql://... for DATABASE_URL. */
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: column values of any type, narrowed by the caller's T
  rows<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

function inspect(serverUrl: string, name: string): InspectedDatabase {
  let pool: Pool | undefined;
  return {
    name,
    url: `${serverUrl}/${name}`,
    async rows<T>(sql: string, params: unknown[] = []) {
      pool ??= createPool({
        uri: `${serverUrl}/${name}`,
        connectionLimit: 2,
        supportBigNumbers: true,
        bigNumberStrings: false,
        decimalNumbers: true,
      });
      const [rows] = await pool.query<RowDataPacket[]>(sql, params);
      return rows as T[];
    },
    async close() {
      await pool?.end();
      pool = undefined;
    },
  };
}

/** A fresh `leadflow_cluster_<random>` database on the shared server; `drop()` removes it. */
export async function createClusterDatabase(): Promise<InspectedDatabase & { drop(): Promise<void> }> {
  const name = `leadflow_cluster_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection({ uri: MYSQL_SERVER_URL });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const database = inspect(MYSQL_SERVER_URL, name);
  return {
    ...database,
    async drop() {
      await database.close();
      const connection = await createConnection({ uri: MYSQL_SERVER_URL });
      try {
        await connection.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await connection.end();
      }
    },
  };
}

/**
 * Whether `binary` is an executable on PATH. Looked up, never run: mariadb-install-db has no
 * harmless flag (it treats unknown ones as options and goes on to the default data directory).
 */
function installed(binary: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(path.join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function mariadbBinariesAvailable(): boolean {
  return installed('mariadbd') && installed('mariadb-install-db');
}

/**
 * A MariaDB server this test owns: its own data directory and port, root with an
 * empty password on 127.0.0.1. It can be SIGKILLed (a crash) and started again on
 * the same data directory and port. Never the shared server on 3306.
 */
export class OwnMariaDb {
  private dir = '';
  private handle: ChildHandle | undefined;
  port = 0;
  /** Every server process started, for the failure message. */
  readonly logs: ChildHandle[] = [];

  get serverUrl(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.handle?.running ?? false;
  }

  async install(): Promise<void> {
    this.dir = await mkdtemp(path.join(tmpdir(), 'lf-mdb-'));
    await mkdir(path.join(this.dir, 'data'));
    this.port = await freePort();
    const installed = spawnSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${path.join(this.dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
        ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (installed.status !== 0) throw new Error(`mariadb-install-db failed:\n${installed.stdout}\n${installed.stderr}`);
  }

  /** Starts mariadbd on the data directory and port; resolves when root can run a query. */
  async start(): Promise<void> {
    const child = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${path.join(this.dir, 'data')}`,
        `--port=${this.port}`,
        `--socket=${path.join(this.dir, 'sock')}`,
        `--pid-file=${path.join(this.dir, 'mariadbd.pid')}`,
        '--bind-address=127.0.0.1',
        '--skip-name-resolve',
        '--innodb-buffer-pool-size=64M',
        '--max-connections=200',
        // Into its output: a test that meets a deadlock can say which statements ran into each other.
        '--innodb-print-all-deadlocks=ON',
        ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const handle = new ChildHandle(`mariadbd:${this.port}`, watchProcess(child));
    this.handle = handle;
    this.logs.push(handle);
    await waitUntil(
      `mariadbd on ${this.port}`,
      async () => {
        if (!handle.running) throw new Error(`mariadbd exited:\n${handle.tail()}`);
        const connection = await createConnection({ uri: this.serverUrl, connectTimeout: 1000 });
        await connection.query('SELECT 1');
        await connection.end();
        return true;
      },
      60_000,
      50,
    );
  }

  /** The deadlocks InnoDB reported in this server's output, across restarts, each with the statements involved. */
  deadlocks(): string[] {
    return this.logs.flatMap((handle) =>
      handle
        .text()
        .split(/(?=^.*Transactions deadlock detected)/m)
        .slice(1)
        .map((report) => report.split('\n').slice(0, 60).join('\n')),
    );
  }

  /** SIGKILL: a crash, not a shutdown. */
  async kill(): Promise<void> {
    await this.handle?.kill();
  }

  async createDatabase(name: string): Promise<InspectedDatabase> {
    const connection = await createConnection({ uri: this.serverUrl });
    try {
      await connection.query(`CREATE DATABASE ${name}`);
    } finally {
      await connection.end();
    }
    return inspect(this.serverUrl, name);
  }

  async destroy(): Promise<void> {
    await this.handle?.kill();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
