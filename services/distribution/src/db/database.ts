import { ConfigError } from '@leadflow/service-kit/config';
import { Kysely, Migrator, SqliteAdapter, sql } from 'kysely';
import type { KeyRing } from '../security/key-ring.js';
import { registerCommitDurability } from './commit-durability.js';
import { migrations } from './migrations/index.js';
import { mysqlDialect } from './mysql-dialect.js';
import type { Database } from './schema.js';
import { sqliteDialect } from './sqlite-dialect.js';

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** mysql://... ; undefined = embedded SQLite in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** MySQL pool size. */
  connectionLimit?: number;
}

export { SQLITE_FILE } from './data-files.js';

export function createDatabase(options: DatabaseOptions): Db {
  if (options.databaseUrl)
    return new Kysely<Database>({ dialect: mysqlDialect(options.databaseUrl, options.connectionLimit ?? 20) });
  const dialect = sqliteDialect(options.dataDir);
  const db = new Kysely<Database>({ dialect });
  registerCommitDurability(db, dialect);
  return db;
}

/** Migrates to the latest schema; data migrations read and write lead data with `ring`. */
export async function migrateToLatest(db: Db, ring: KeyRing): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations(ring) } });
  const { error, results } = await migrator.migrateToLatest();
  // A key ring that does not match the data says so in its own words.
  if (error instanceof ConfigError) throw error;
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    // The driver's code or the error's name only: a message may quote the values of a statement.
    const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
    const reason = typeof code === 'string' ? code : typeof name === 'string' ? name : undefined;
    const what = failed ? `migration ${failed.migrationName}` : 'migrating';
    throw new Error(`${what} failed${reason ? ` (${reason})` : ''}`, { cause: error });
  }
  await discardOverwrittenPages(db);
}

/**
 * On SQLite, folds the write-ahead log into the database and truncates it:
 * pages written before an overwrite (a purge, a re-encryption) stay in the WAL
 * file until then. secure_delete has zeroed them in the database itself. On
 * MySQL, InnoDB's redo and undo logs recycle on their own.
 */
export async function discardOverwrittenPages(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
}

/** True for a unique-key violation on either engine. */
export function isDuplicateKeyError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * True when the engine gave up a transaction to break a lock conflict (InnoDB
 * deadlock or lock wait timeout; SQLite busy in any of its extended forms, such
 * as SQLITE_BUSY_SNAPSHOT for a read snapshot another connection's commit made
 * stale): running it again is safe.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || isSqliteBusy(code);
}

/** SQLITE_BUSY or one of its extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, SQLITE_BUSY_TIMEOUT). */
export function isSqliteBusy(code: unknown): boolean {
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}
