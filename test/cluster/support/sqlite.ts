import path from 'node:path';
import { SQLITE_FILE } from '@leadflow/distribution/src/db/database';
import SqliteDatabase from 'better-sqlite3';
import type { InspectedDatabase } from './mariadb.js';

/**
 * The embedded database of a distribution process's data directory, read by the test with its own
 * connection (WAL: it sees every committed transaction, and never blocks the writer). Opened on the
 * first query, so the process may create the file first; `?` placeholders as with MariaDB. Not
 * read-only: a read-only connection cannot recover the WAL index of a writer that was killed.
 */
export function inspectSqlite(dataDir: string): InspectedDatabase {
  const file = path.join(dataDir, SQLITE_FILE);
  let database: SqliteDatabase.Database | undefined;
  return {
    name: file,
    url: '',
    async rows<T>(sql: string, params: unknown[] = []) {
      if (!database) {
        database = new SqliteDatabase(file, { fileMustExist: true });
        database.pragma('busy_timeout = 5000');
      }
      return database.prepare(sql).all(...params) as T[];
    },
    async close() {
      database?.close();
      database = undefined;
    },
  };
}
