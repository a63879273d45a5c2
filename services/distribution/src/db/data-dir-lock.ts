import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@leadflow/service-kit/config';
import SqliteDatabase from 'better-sqlite3';
import { restrictToOwner, sqliteCompanionFiles } from './data-files.js';
import { isSqliteBusy } from './database.js';

export const LOCK_FILE = 'leadflow.lock';

interface Holder {
  pid: number;
  host: string;
  started_at: number;
}

export interface DataDirLock {
  /** Who held the directory before, when that process ended without releasing it (a crash, kill -9). */
  readonly previous: Holder | undefined;
  /** Clears the holder's name and gives the directory up. */
  release(): void;
}

function readHolder(lock: SqliteDatabase.Database): Holder | undefined {
  try {
    return lock.prepare('SELECT pid, host, started_at FROM holder').get() as Holder | undefined;
  } catch {
    return undefined;
  }
}

function inUse(dataDir: string, holder: Holder | undefined): ConfigError {
  const who = holder
    ? ` (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.started_at).toISOString()})`
    : '';
  return new ConfigError(
    `${dataDir} is in use by another distribution service${who}: one service per embedded data directory. ` +
      'Stop it, or give this one its own LEADFLOW_DATA_DIR; to run several instances, use MySQL (DATABASE_URL)',
  );
}

/**
 * One distribution service per embedded data directory: two would each
 * cache and sell over the same SQLite file. The lock is a write lock the
 * holder keeps open on `leadflow.lock` (SQLite's POSIX byte-range locks), so
 * the kernel releases it when the holder dies however it dies: a stale lock
 * cannot outlive its process, and a reused pid cannot hold it. The file also
 * names the holder (pid, host, start) for the refusal message.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  const lock = new SqliteDatabase(file, { timeout: 0 });
  try {
    restrictToOwner(file, ...sqliteCompanionFiles(file));
    lock.pragma('journal_mode = DELETE');
    const claim = () => {
      try {
        lock.exec('BEGIN IMMEDIATE');
      } catch (error) {
        if (!isSqliteBusy((error as { code?: unknown }).code)) throw error;
        lock.pragma('busy_timeout = 1000'); // for reading the holder while it writes its name
        throw inUse(dataDir, readHolder(lock));
      }
    };
    claim();
    lock.exec(
      'CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL, started_at INTEGER NOT NULL)',
    );
    const previous = readHolder(lock);
    lock.exec('DELETE FROM holder');
    lock
      .prepare('INSERT INTO holder (pid, host, started_at) VALUES (?, ?, ?)')
      .run(process.pid, hostname(), Date.now());
    lock.exec('COMMIT');
    // Held from here to release: readers may read the holder's name, no other process can claim it.
    claim();
    return {
      previous,
      release() {
        if (!lock.open) return;
        try {
          lock.exec('DELETE FROM holder');
          lock.exec('COMMIT');
        } catch {
          // The name stays (the directory may be gone already); closing releases the lock all the same.
        } finally {
          lock.close();
        }
      },
    };
  } catch (error) {
    lock.close();
    throw error;
  }
}
