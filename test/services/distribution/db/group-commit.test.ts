import path from 'node:path';
import {
  createDatabase,
  type Db,
  isDuplicateKeyError,
  migrateToLatest,
  SQLITE_FILE,
} from '@leadflow/distribution/src/db/database';
import { GroupCommit } from '@leadflow/distribution/src/db/group-commit';
import { rowsInsert } from '@leadflow/distribution/src/db/insert-rows';
import { plannedWrite } from '@leadflow/distribution/src/db/statements-together';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import type { KyselyPlugin } from 'kysely';
import { testKeyRing } from '../../../support/key-ring.js';
import { publisherRow } from '../../../support/publisher-row.js';
import { describeEachDatabase, sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

describeEachDatabase('group commit of concurrent writes', (database) => {
  let db: Db;

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db, testKeyRing());
  });
  after(() => db?.destroy());

  const ids = async () => (await db.selectFrom('publishers').select('id').orderBy('id').execute()).map((row) => row.id);

  it('commits writes that arrive together, each with its own result', async () => {
    const writes = new GroupCommit(db);
    const results = await Promise.all(
      ['a1', 'a2', 'a3'].map((id) =>
        writes.run(async (trx) => {
          await trx.insertInto('publishers').values(publisherRow(id)).execute();
          return id.toUpperCase();
        }),
      ),
    );
    expect(results).to.deep.equal(['A1', 'A2', 'A3']);
    expect(await ids()).to.include.members(['a1', 'a2', 'a3']);
  });

  it('reports a failing write to its caller only and commits the others', async () => {
    const writes = new GroupCommit(db);
    const insert = (id: string) => writes.run((trx) => trx.insertInto('publishers').values(publisherRow(id)).execute());
    const outcomes = await Promise.allSettled([insert('b1'), insert('b1'), insert('b2')]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(isDuplicateKeyError((outcomes[1] as PromiseRejectedResult).reason)).to.equal(true);
    expect(await ids()).to.include.members(['b1', 'b2']);
  });

  it('rolls back all of a failing write, never a part of it', async () => {
    const writes = new GroupCommit(db);
    const failing = writes.run(async (trx) => {
      await trx.insertInto('publishers').values(publisherRow('c1')).execute();
      throw new Error('write refused');
    });
    const other = writes.run((trx) => trx.insertInto('publishers').values(publisherRow('c2')).execute());
    const error = await failing.then(
      () => undefined,
      (reason: Error) => reason,
    );
    expect(error?.message).to.equal('write refused');
    await other;
    const stored = await ids();
    expect(stored).to.include('c2');
    expect(stored).not.to.include('c1');
  });

  describe('planned writes', () => {
    /** The statements Kysely runs through `db` and its transactions, a multi-statement packet counting once. */
    const countingRoundTrips = () => {
      const counter = { roundTrips: 0 };
      const plugin: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          counter.roundTrips++;
          return args.result;
        },
      };
      return { counted: db.withPlugin(plugin), counter };
    };
    const insertPublisher = (id: string, name = id) =>
      plannedWrite([rowsInsert(db, 'publishers', [publisherRow(id, name)])], ([inserted]) =>
        Number(inserted?.numAffectedRows),
      );

    it("sends the statements of every planned write in a batch together, then runs each one's code", async () => {
      const { counted, counter } = countingRoundTrips();
      const writes = new GroupCommit(counted);
      const finished: string[] = [];
      const results = await Promise.all(
        ['d1', 'd2', 'd3', 'd4'].map((id) =>
          writes.run(
            plannedWrite(
              [
                rowsInsert(db, 'publishers', [publisherRow(id)]),
                db.selectFrom('publishers').select('id').where('id', '=', id).compile(),
              ],
              ([, read]) => {
                finished.push(id);
                return read.rows.map((row) => row.id);
              },
            ),
          ),
        ),
      );
      expect(results).to.deep.equal([['d1'], ['d2'], ['d3'], ['d4']]);
      expect(finished).to.deep.equal(['d1', 'd2', 'd3', 'd4']);
      expect(await ids()).to.include.members(['d1', 'd2', 'd3', 'd4']);
      expect(counter.roundTrips, 'one packet on MySQL, one a statement on SQLite').to.equal(
        database().kind === 'mysql' ? 1 : 8,
      );
    });

    it("runs a batch's writes of code after its planned statements", async () => {
      const writes = new GroupCommit(db);
      const results = await Promise.all([
        writes.run(async (trx) => {
          await trx.insertInto('publishers').values(publisherRow('e1')).execute();
          return 'code';
        }),
        writes.run(insertPublisher('e2')),
      ]);
      expect(results).to.deep.equal(['code', 1]);
      expect(await ids()).to.include.members(['e1', 'e2']);
    });

    it('reports a statement that fails to its write only, and commits the others', async () => {
      const writes = new GroupCommit(db);
      const outcomes = await Promise.allSettled([
        writes.run(insertPublisher('f1')),
        writes.run(insertPublisher('f1', 'again')),
        writes.run(insertPublisher('f2')),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
      expect(isDuplicateKeyError((outcomes[1] as PromiseRejectedResult).reason)).to.equal(true);
      const names = await db.selectFrom('publishers').select('name').where('id', 'in', ['f1', 'f2']).execute();
      expect(names.map((row) => row.name).sort()).to.deep.equal(['f1', 'f2']);
    });

    it('takes back all of a planned write whose code fails, and none of the others', async () => {
      const writes = new GroupCommit(db);
      const failing = writes.run(
        plannedWrite([rowsInsert(db, 'publishers', [publisherRow('g1')])], () => {
          throw new Error('write refused');
        }),
      );
      const other = writes.run(insertPublisher('g2'));
      const error = await failing.then(
        () => undefined,
        (reason: Error) => reason,
      );
      expect(error?.message).to.equal('write refused');
      expect(await other).to.equal(1);
      const stored = await ids();
      expect(stored).to.include('g2');
      expect(stored).not.to.include('g1');
    });
  });
});

describe('group commit against another SQLite connection', () => {
  let database: TestDatabase;
  let db: Db;
  let other: SqliteDatabase.Database;

  before(async () => {
    database = await sqliteDatabase();
    db = createDatabase(loadDistributionConfig(database.env));
    await migrateToLatest(db, testKeyRing());
    other = new SqliteDatabase(path.join(database.env.LEADFLOW_DATA_DIR!, SQLITE_FILE));
  });
  after(async () => {
    other?.close();
    await db?.destroy();
    await database?.drop();
  });

  it('runs again a write whose read snapshot another connection made stale (SQLITE_BUSY_SNAPSHOT)', async () => {
    const writes = new GroupCommit(db);
    const errors: unknown[] = [];
    let attempts = 0;
    const id = await writes.run(async (trx) => {
      attempts++;
      // A read opens the snapshot; the other connection then commits, so this transaction cannot write.
      await trx.selectFrom('publishers').select('id').execute();
      if (attempts === 1)
        other
          .prepare(
            'INSERT INTO publishers (id, name, rate_limit_per_minute, payout_share_bps, created_at) VALUES (?, ?, 60, 8000, 0)',
          )
          .run('other', 'other');
      try {
        await trx.insertInto('publishers').values(publisherRow('mine')).execute();
      } catch (error) {
        errors.push(error);
        throw error;
      }
      return 'mine';
    });
    expect(id).to.equal('mine');
    expect(errors.map((error) => (error as { code?: string }).code)).to.deep.equal(['SQLITE_BUSY_SNAPSHOT']);
    expect(attempts).to.equal(2);
  });
});
