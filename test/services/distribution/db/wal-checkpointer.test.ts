import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SQLITE_FILE } from '@leadflow/distribution/src/db/database';
import { sqliteDialect } from '@leadflow/distribution/src/db/sqlite-dialect';
import { startWalCheckpointer } from '@leadflow/distribution/src/db/wal-checkpointer';
import { expect } from 'chai';
import { Kysely, sql } from 'kysely';
import { waitUntil } from '../../../support/wait-until.js';

interface Table {
  notes: { id: number; body: string };
}

describe("SQLite checkpoints run beside the service's connection, not in its commits", () => {
  let dir: string;
  let db: Kysely<Table> | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'leadflow-checkpoint-'));
  });
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves checkpoints out of the commits and still copies the WAL into the database file', async () => {
    db = new Kysely<Table>({ dialect: sqliteDialect(dir) });
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(rows[0]?.wal_autocheckpoint, 'no commit checkpoints').to.equal(0);

    await sql`create table notes (id integer primary key, body text)`.execute(db);
    const file = path.join(dir, SQLITE_FILE);
    const before = statSync(file).size;
    // About 2 MB: some 500 pages, below the 4,000 at which commits checkpoint when the worker cannot.
    const body = 'x'.repeat(2000);
    for (let batch = 0; batch < 10; batch += 1) {
      await db
        .insertInto('notes')
        .values(Array.from({ length: 100 }, (_, index) => ({ id: batch * 100 + index, body })))
        .execute();
    }
    await waitUntil('the rows to reach the database file', () => statSync(file).size > before + 1_500_000, 5000, 20);
    const count = await db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).to.equal(1000);
  });

  it('lets the commits checkpoint again, with a warning, when its worker stops', async () => {
    let stopWorker: ((error: Error) => void) | undefined;
    const stoppable: typeof startWalCheckpointer = (_, onStopped) => {
      stopWorker = onStopped;
      return { stop: async () => undefined };
    };
    db = new Kysely<Table>({ dialect: sqliteDialect(dir, { startCheckpointer: stoppable }) });
    const autocheckpoint = async () =>
      (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db!)).rows[0]?.wal_autocheckpoint;
    expect(await autocheckpoint()).to.equal(0);

    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      stopWorker!(new Error('SQLITE_IOERR: disk I/O error'));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(await autocheckpoint(), 'commits checkpoint at 4,000 pages').to.equal(4000);
    expect(warnings.map((warning) => [warning.name, warning.message])).to.deep.equal([
      ['LeadflowWarning', 'SQLite checkpoints are back in the commits: SQLITE_IOERR: disk I/O error'],
    ]);
  });

  it('stops its worker on stop() without calling it a failure', async () => {
    db = new Kysely<Table>({ dialect: sqliteDialect(dir) });
    await sql`create table notes (id integer primary key, body text)`.execute(db);
    const failures: Error[] = [];
    const checkpointer = startWalCheckpointer(path.join(dir, SQLITE_FILE), (error) => failures.push(error), 10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await checkpointer.stop();
    expect(failures).to.deep.equal([]);
  });

  it('reports a worker that cannot checkpoint, so that the commits can do it again', async () => {
    const failures: Error[] = [];
    startWalCheckpointer(dir, (error) => failures.push(error), 10);
    await waitUntil('the failure to be reported', () => failures.length > 0, 5000, 20);
    expect(failures[0]?.message).to.match(/^SQLITE_CANTOPEN: /);
  });
});
