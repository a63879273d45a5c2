import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Db, SQLITE_FILE } from '@leadflow/distribution/src/db/database';
import { GroupCommit } from '@leadflow/distribution/src/db/group-commit';
import type { Database } from '@leadflow/distribution/src/db/schema';
import { type DurableSqliteDialect, sqliteDialect } from '@leadflow/distribution/src/db/sqlite-dialect';
import { fileSync } from '@leadflow/distribution/src/db/wal-sync';
import { expect } from 'chai';
import { Kysely, sql } from 'kysely';
import { HeldSyncs } from '../../../support/held-syncs.js';

interface Table {
  notes: { id: number; body: string };
}

/** Resolves once `check` holds, turning the event loop meanwhile. */
async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !check(); turn += 1) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).to.equal(true);
}

function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  const watched = promise.finally(() => (settled = true));
  watched.catch(() => undefined);
  return { promise: watched, settled: () => settled };
}

/** A fresh embedded database holding the notes table; from then on, its WAL's fsyncs are held. */
async function notesDatabase<T>(prefix: string) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const syncs = new HeldSyncs();
  syncs.holding = false;
  const dialect = sqliteDialect(dir, { syncWal: syncs.sync });
  const db = new Kysely<T>({ dialect });
  await sql`create table notes (id integer primary key, body text)`.execute(db);
  syncs.holding = true;
  syncs.started = 0;
  return { dir, syncs, dialect, db };
}

async function closeNotes(dir: string, syncs: HeldSyncs, db: { destroy(): Promise<void> }): Promise<void> {
  syncs.releaseAll();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
}

describe('SQLite commits are on disk before their caller hears of them', () => {
  let dir: string;
  let syncs: HeldSyncs;
  let db: Kysely<Table>;
  let dialect: DurableSqliteDialect;

  beforeEach(async () => {
    ({ dir, syncs, db, dialect } = await notesDatabase<Table>('leadflow-durable-'));
  });
  afterEach(() => closeNotes(dir, syncs, db));

  it('reports a transaction done only once the WAL is synced, and lets other queries run meanwhile', async () => {
    const write = tracked(
      db.transaction().execute((trx) => trx.insertInto('notes').values({ id: 1, body: 'a' }).execute()),
    );
    await until(() => syncs.pending.length === 1);
    expect(write.settled()).to.equal(false);
    // The connection is free during the fsync: a read runs, and needs no sync of its own.
    expect(await db.selectFrom('notes').select('body').execute()).to.deep.equal([{ body: 'a' }]);
    expect(syncs.started).to.equal(1);
    syncs.pending.shift()!.resolve();
    await write.promise;
  });

  it('shares one fsync among the commits made while the one before ran', async () => {
    const before = { ...dialect.diskWaits() };
    const first = tracked(db.insertInto('notes').values({ id: 1, body: 'a' }).execute());
    await until(() => syncs.pending.length === 1);
    const later = [2, 3, 4].map((id) => tracked(db.insertInto('notes').values({ id, body: 'b' }).execute()));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(syncs.started, 'no second fsync while the first runs').to.equal(1);
    syncs.pending.shift()!.resolve();
    await first.promise;
    await until(() => syncs.pending.length === 1);
    expect(later.some((write) => write.settled())).to.equal(false);
    syncs.pending.shift()!.resolve();
    await Promise.all(later.map((write) => write.promise));
    expect(syncs.started).to.equal(2);
    const { waits, syncs: fsyncs } = dialect.diskWaits();
    expect(
      { waits: waits - before.waits, syncs: fsyncs - before.syncs },
      'counted for the metrics: four commits waited, on two fsyncs',
    ).to.deep.equal({ waits: 4, syncs: 2 });
  });

  it('times each fsync for the metrics, once it has ended, failed or not', async () => {
    const timed: number[] = [];
    dialect.timeSyncs((seconds) => timed.push(seconds));
    const first = tracked(db.insertInto('notes').values({ id: 1, body: 'a' }).execute());
    await until(() => syncs.pending.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(timed, 'nothing while the fsync runs').to.deep.equal([]);
    syncs.pending.shift()!.resolve();
    await first.promise;
    const second = tracked(db.insertInto('notes').values({ id: 2, body: 'b' }).execute());
    await until(() => syncs.pending.length === 1);
    syncs.pending.shift()!.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await second.promise.catch(() => undefined);
    expect(timed).to.have.length(2);
    expect(timed[0]).to.be.at.least(0.025).and.below(10);
    expect(timed[1]).to.be.at.least(0).and.below(10);
  });

  it('fails the commit of a caller whose fsync failed', async () => {
    const write = tracked(db.insertInto('notes').values({ id: 1, body: 'a' }).execute());
    await until(() => syncs.pending.length === 1);
    syncs.pending.shift()!.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await write.promise.then(
      () => expect.fail('the write was reported durable'),
      (error: NodeJS.ErrnoException) => expect(error.code).to.equal('EIO'),
    );
    // The next commit gets an fsync of its own.
    const next = tracked(db.insertInto('notes').values({ id: 2, body: 'b' }).execute());
    await until(() => syncs.pending.length === 1);
    syncs.pending.shift()!.resolve();
    await next.promise;
  });
});

describe('a group-commit write that need not wait for the disk', () => {
  let dir: string;
  let syncs: HeldSyncs;
  let db: Db;
  let writes: GroupCommit;
  const insertNote = (id: number) => (trx: Db) => sql`insert into notes (id, body) values (${id}, 'a')`.execute(trx);

  beforeEach(async () => {
    const notes = await notesDatabase<Database>('leadflow-sync-later-');
    ({ dir, syncs, db } = notes);
    writes = new GroupCommit(db, notes.dialect);
  });
  afterEach(() => closeNotes(dir, syncs, db));

  it('is done once committed, and reaches the disk with the next write that waits', async () => {
    const early = tracked(writes.run(insertNote(1), { waitForDisk: false }));
    await until(() => early.settled());
    await early.promise;
    expect(syncs.started, 'no fsync for it').to.equal(0);

    const waited = tracked(writes.run(insertNote(2)));
    await until(() => syncs.pending.length === 1);
    expect(waited.settled(), 'the waiting write waits').to.equal(false);
    syncs.pending.shift()!.resolve();
    await waited.promise;
    // That one fsync began after both commits: it covers both.
    expect(syncs.started).to.equal(1);
  });

  it('waits after all when it shares its commit with a write that waits', async () => {
    const early = tracked(writes.run(insertNote(1), { waitForDisk: false }));
    const waited = tracked(writes.run(insertNote(2)));
    await until(() => syncs.pending.length === 1);
    expect(early.settled() || waited.settled()).to.equal(false);
    syncs.pending.shift()!.resolve();
    await Promise.all([early.promise, waited.promise]);
  });

  it('lets a read after it run without waiting for the disk', async () => {
    await writes.run(insertNote(1), { waitForDisk: false });
    const read = tracked(sql<{ body: string }>`select body from notes`.execute(db));
    await until(() => read.settled());
    expect((await read.promise).rows).to.deep.equal([{ body: 'a' }]);
    expect(syncs.started).to.equal(0);
  });

  it('leaves a write after it waiting as before', async () => {
    await writes.run(insertNote(1), { waitForDisk: false });
    const plain = tracked(sql`update notes set body = 'b'`.execute(db));
    await until(() => syncs.pending.length === 1);
    expect(plain.settled()).to.equal(false);
    syncs.pending.shift()!.resolve();
    await plain.promise;
  });
});

describe('the WAL fsync', () => {
  it('syncs the real file, and finds nothing to sync before SQLite made it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadflow-wal-'));
    try {
      const wal = fileSync(path.join(dir, `${SQLITE_FILE}-wal`));
      await wal.sync();
      const db = new Kysely<Table>({ dialect: sqliteDialect(dir) });
      await sql`create table notes (id integer primary key, body text)`.execute(db);
      await db.insertInto('notes').values({ id: 1, body: 'kept' }).execute();
      await db.destroy();
      const reopened = new Kysely<Table>({ dialect: sqliteDialect(dir) });
      expect(await reopened.selectFrom('notes').select('body').execute()).to.deep.equal([{ body: 'kept' }]);
      await reopened.destroy();
      await wal.sync();
      await wal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
