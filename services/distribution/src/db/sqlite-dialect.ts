import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import SqliteDatabase from 'better-sqlite3';
import {
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  SqliteAdapter,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { CommitDurability, DiskWaits } from './commit-durability.js';
import { restrictToOwner, SQLITE_FILE, sqliteCompanionFiles } from './data-files.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';
import { type FileSync, fileSync, WalSync } from './wal-sync.js';

/** Kysely prepares every query anew; the same few statements run for every lead, so keep them prepared. */
const PREPARED_STATEMENTS = 256;

/** What the connection's holder did since it took the connection. */
interface Unsynced {
  /** It wrote: on release it waits for the WAL's sync. */
  writes: boolean;
  /** It leaves that sync to the next writer (CommitDurability.syncLater). */
  syncLater: boolean;
}

function withStatementCache(database: SqliteDatabase.Database, unsynced: Unsynced): SqliteDialectConfig['database'] {
  const statements = new TtlCache<string, SqliteDatabase.Statement>(Number.POSITIVE_INFINITY, PREPARED_STATEMENTS);
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      // Kysely prepares each statement just before it runs it. BEGIN and COMMIT count as read-only.
      if (!statement.readonly) unsynced.writes = true;
      return statement;
    },
  };
}

/**
 * better-sqlite3's driver, made durable off the event loop: a connection that wrote is given back at
 * once (the next query need not wait for the disk), and its user hears that the query or transaction
 * is done only once the WAL holding it is synced.
 */
class DurableSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly database: SqliteDatabase.Database,
    private readonly unsynced: Unsynced,
    private readonly wal: WalSync,
    private readonly closeFiles: () => Promise<void>,
  ) {
    super(config);
  }

  override async releaseConnection(): Promise<void> {
    const { syncLater } = this.unsynced;
    this.unsynced.syncLater = false;
    const wrote = this.unsynced.writes && !this.database.inTransaction;
    if (wrote) this.unsynced.writes = false;
    await super.releaseConnection();
    // A commit left to later is synced by the next writer's fsync, which covers it: the WAL is written in order.
    if (wrote && !syncLater) await this.wal.sync();
  }

  override async destroy(): Promise<void> {
    await this.closeFiles();
    await super.destroy();
  }
}

/** The WAL size, in pages, at which SQLite checkpoints inside a commit: only while the worker cannot. */
const COMMIT_CHECKPOINT_PAGES = 4000;

/** Checkpoints from a worker thread; should it stop, the commits checkpoint again, as SQLite does by default. */
function checkpointOffTheEventLoop(
  database: SqliteDatabase.Database,
  file: string,
  startCheckpointer: typeof startWalCheckpointer,
): WalCheckpointer {
  database.pragma('wal_autocheckpoint = 0');
  return startCheckpointer(file, (error) => {
    if (!database.open) return;
    database.pragma(`wal_autocheckpoint = ${COMMIT_CHECKPOINT_PAGES}`);
    process.emitWarning(`SQLite checkpoints are back in the commits: ${error.message}`, 'LeadflowWarning');
  });
}

/**
 * Kysely's SQLite dialect with the durable driver. `syncLater`, called by whoever holds the connection
 * (inside a transaction), lets that holder hear its commit is done without waiting for the disk.
 */
export class DurableSqliteDialect implements Dialect, CommitDurability {
  constructor(
    readonly createDriver: () => Driver,
    readonly syncLater: () => void,
    readonly diskWaits: () => DiskWaits,
    readonly timeSyncs: (observe: (seconds: number) => void) => void,
  ) {}

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/** Parts of the embedded database that tests replace to watch them: by default the real ones. */
export interface SqliteParts {
  /** The WAL's fsync; the real one runs through the thread pool. */
  syncWal?: FileSync;
  /** What checkpoints the WAL; the real one is a worker thread. */
  startCheckpointer?: typeof startWalCheckpointer;
}

/** The embedded database in dataDir. */
export function sqliteDialect(dataDir: string, parts: SqliteParts = {}): DurableSqliteDialect {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, SQLITE_FILE);
  const database = new SqliteDatabase(file);
  // Before the first write: SQLite gives the -wal and -shm files it creates the database file's mode.
  restrictToOwner(file, ...sqliteCompanionFiles(file));
  database.pragma('journal_mode = WAL');
  // A commit survives power loss: NORMAL writes it to the WAL and the driver syncs the WAL before the
  // committer goes on (FULL would fsync in the commit, on the event loop). One fsync serves every commit
  // made while the one before ran: see docs/security.md, "The embedded data directory".
  database.pragma('synchronous = NORMAL');
  // Deleted and overwritten content is zeroed, so a purged or re-encrypted value leaves no copy in free pages.
  database.pragma('secure_delete = ON');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // better-sqlite3 builds SQLite with a 16 MB page cache (SQLite's own default is 2 MB), which a busy
  // service fills and keeps: 16 MB of its resident memory. A lead's statements read the B-trees' last
  // pages and a buyer's recent rows, which 2 MB holds, and a page it misses is in the OS's file cache.
  database.pragma('cache_size = -2000');
  const checkpointer = checkpointOffTheEventLoop(database, file, parts.startCheckpointer ?? startWalCheckpointer);
  const unsynced: Unsynced = { writes: false, syncLater: false };
  const walFile = fileSync(`${file}-wal`);
  const config = { database: withStatementCache(database, unsynced) };
  const closeFiles = async () => {
    await checkpointer.stop();
    await walFile.close();
  };
  const wal = new WalSync(parts.syncWal ?? walFile.sync);
  return new DurableSqliteDialect(
    () => new DurableSqliteDriver(config, database, unsynced, wal, closeFiles),
    () => {
      unsynced.syncLater = true;
    },
    () => wal.diskWaits,
    (observe) => wal.timeSyncs(observe),
  );
}
