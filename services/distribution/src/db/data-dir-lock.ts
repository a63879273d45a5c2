import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@leadflow/service-kit/config';
import SqliteDatabase from 'better-sqlite3';
import { restrictToOwner, sqliteCompanionFiles } from './data-files.js';
import { isSqliteBusy } from './database.js';

export const LOCK_FILE = 'leadflow.lock';

/** The process holding a lock file: its pid, its machine and when it took the lock (ms since the epoch). */
export interface LockHolder {
  pid: number;
  host: string;
  started_at: number;
}

export interface HeldLock {
  /** Who held the file before, when that process ended without releasing it (a crash, kill -9). */
  readonly previous: LockHolder | undefined;
  /** Clears the holder's name and gives the file up. */
  release(): void;
}

function readHolder(lock: SqliteDatabase.Database): LockHolder | undefined {
  try {
    return lock.prepare('SELECT pid, host, started_at FROM holder').get() as LockHolder | undefined;
  } catch {
    return undefined;
  }
}

function inUse(dataDir: string, holder: LockHolder | undefined): ConfigError {
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
 * cache and sell over the same SQLite file. The file also names the holder
 * (pid, host, start) for the refusal message.
 */
export function lockDataDir(dataDir: string): HeldLock {
  return holdLockFile(path.join(dataDir, LOCK_FILE), (holder) => inUse(dataDir, holder));
}

/**
 * Takes `file` as this process's lock, or throws what `refusal` makes of the
 * process holding it. The lock is a write lock the holder keeps open
 * (SQLite's POSIX byte-range locks), so the kernel releases it when the
 * holder dies however it dies: a stale lock cannot outlive its process, and a
 * reused pid cannot hold it.
 */
export function holdLockFile(file: string, refusal: (holder: LockHolder | undefined) => Error): HeldLock {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
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
        throw refusal(readHolder(lock));
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
