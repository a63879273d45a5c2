import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import { recordSkippedSuite } from './skipped-suites.js';

/** Where a suite's leadflow keeps its state: a fresh SQLite directory or a fresh MariaDB database. */
export interface TestDatabase {
  kind: 'sqlite' | 'mysql';
  /** Environment for loadDistributionConfig. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export const MYSQL_SERVER_URL = process.env.LEADFLOW_TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
const requireMysql = process.env.LEADFLOW_REQUIRE_MYSQL === '1';

/** Secrets as production passes them: from the environment. */
export function productionSecretsEnv(): Record<string, string> {
  return {
    LEADFLOW_ADMIN_TOKEN: `lfadm_${randomBytes(24).toString('base64url')}`,
    LEADFLOW_PII_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    LEADFLOW_HMAC_KEY: randomBytes(32).toString('base64'),
  };
}

export async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-test-'));
  return {
    kind: 'sqlite',
    env: { LEADFLOW_DATA_DIR: dir },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

let mysqlReachable: Promise<boolean> | undefined;

function probeMysql(): Promise<boolean> {
  mysqlReachable ??= createConnection({ uri: MYSQL_SERVER_URL, connectTimeout: 2000 }).then(
    async (connection) => {
      await connection.end();
      return true;
    },
    () => false,
  );
  return mysqlReachable;
}

export async function mysqlDatabase(): Promise<TestDatabase> {
  const name = `leadflow_test_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection({ uri: MYSQL_SERVER_URL });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-test-'));
  return {
    kind: 'mysql',
    env: { LEADFLOW_DATA_DIR: dir, DATABASE_URL: `${MYSQL_SERVER_URL}/${name}`, ...productionSecretsEnv() },
    async drop() {
      const connection = await createConnection({ uri: MYSQL_SERVER_URL });
      await connection.query(`DROP DATABASE IF EXISTS ${name}`);
      await connection.end();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Declares a suite once per storage engine. The MariaDB variant is skipped,
 * and named at the end of the run, when no server answers, unless
 * LEADFLOW_REQUIRE_MYSQL=1 makes that a failure.
 */
export function describeEachDatabase(
  title: string,
  body: (database: () => TestDatabase) => void,
  kinds: readonly TestDatabase['kind'][] = ['sqlite', 'mysql'],
): void {
  for (const kind of kinds) {
    describe(`${title} [${kind}]`, () => {
      let database: TestDatabase | undefined;
      before(async function () {
        if (kind === 'mysql' && !(await probeMysql())) {
          if (requireMysql) throw new Error(`MariaDB/MySQL at ${MYSQL_SERVER_URL} is required but does not answer`);
          recordSkippedSuite(`${title} [mysql]`, `no MariaDB/MySQL at ${MYSQL_SERVER_URL}`);
          this.skip();
        }
        database = kind === 'sqlite' ? await sqliteDatabase() : await mysqlDatabase();
      });
      after(async () => {
        await database?.drop();
      });
      body(() => {
        if (!database) throw new Error('database not ready');
        return database;
      });
    });
  }
}
