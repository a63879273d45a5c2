import { chmodSync } from 'node:fs';

/** The embedded database, in the data directory. */
export const SQLITE_FILE = 'leadflow.sqlite';

/** Read and write for the owner only: lead data, keys and tokens are nobody else's business. */
export const OWNER_ONLY = 0o600;

/** The files SQLite keeps beside a database in WAL mode (and the rollback journal of a non-WAL one). */
export function sqliteCompanionFiles(file: string): string[] {
  return [`${file}-wal`, `${file}-shm`, `${file}-journal`];
}

/**
 * Makes existing files owner-only, whatever mode they were created with (an
 * older release, a restore, a umask). By path, never through a file
 * descriptor: closing any descriptor of a file drops the process's POSIX
 * locks on it, which SQLite's locking relies on. Missing files are skipped.
 */
export function restrictToOwner(...files: string[]): void {
  for (const file of files) {
    try {
      chmodSync(file, OWNER_ONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
