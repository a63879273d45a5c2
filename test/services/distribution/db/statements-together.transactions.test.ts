import { createDatabase, type Db, isDuplicateKeyError, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { rowsInsert } from '@leadflow/distribution/src/db/insert-rows';
import { executeTogether } from '@leadflow/distribution/src/db/statements-together';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { testKeyRing } from '../../../support/key-ring.js';
import { publisherRow } from '../../../support/publisher-row.js';
import { describeEachDatabase } from '../../../support/test-database.js';

// On MySQL a transaction's BEGIN goes to the server with its first statement: these hold it to what a
// transaction promises, whatever that first statement is and however the transaction ends.
describeEachDatabase('transactions', (database) => {
  let db: Db;

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db, testKeyRing());
    await db.insertInto('publishers').values(publisherRow('x-base')).execute();
  });
  after(() => db?.destroy());

  const ids = async (prefix: string) =>
    (await db.selectFrom('publishers').select('id').where('id', 'like', `${prefix}%`).orderBy('id').execute()).map(
      (row) => row.id,
    );
  const insert = (target: Db, id: string) => target.insertInto('publishers').values(publisherRow(id)).execute();

  it('keeps nothing of a transaction whose later statement fails', async () => {
    const failing = db.transaction().execute(async (trx) => {
      await insert(trx, 'x1-a');
      await insert(trx, 'x1-a');
    });
    expect(await failing.catch(isDuplicateKeyError)).to.equal(true);
    expect(await ids('x1-')).to.deep.equal([]);
  });

  it('keeps nothing of a transaction whose first statement fails, nor of one its caller gives up', async () => {
    const failing = db.transaction().execute((trx) => insert(trx, 'x-base'));
    expect(await failing.catch(isDuplicateKeyError)).to.equal(true);
    const givenUp = db.transaction().execute(async (trx) => {
      await insert(trx, 'x2-a');
      throw new Error('given up');
    });
    expect(await givenUp.catch((error: Error) => error.message)).to.equal('given up');
    expect(await ids('x2-')).to.deep.equal([]);
    expect(await ids('x-base')).to.deep.equal(['x-base']);
  });

  it("gives a transaction's first statement its rows and counts as it gives any other", async () => {
    const [read, updated, together] = await db
      .transaction()
      .execute(async (trx) => [
        await trx.selectFrom('publishers').select('id').where('id', '=', 'x-base').execute(),
        await trx.updateTable('publishers').set({ name: 'renamed' }).where('id', '=', 'x-base').executeTakeFirst(),
        await executeTogether(trx, [rowsInsert(trx, 'publishers', [publisherRow('x3-a')]), undefined]),
      ]);
    expect(read).to.deep.equal([{ id: 'x-base' }]);
    expect(updated.numUpdatedRows).to.equal(1n);
    expect(together[0]?.numAffectedRows).to.equal(1n);
    const [first] = await db
      .transaction()
      .execute(async (trx) => [
        await trx.updateTable('publishers').set({ name: 'again' }).where('id', '=', 'x-none').executeTakeFirst(),
      ]);
    expect(first.numUpdatedRows).to.equal(0n);
    const [packet] = await db
      .transaction()
      .execute(async (trx) => [
        await executeTogether(trx, [
          rowsInsert(trx, 'publishers', [publisherRow('x3-b')]),
          trx.selectFrom('publishers').select('id').where('id', 'like', 'x3-%').orderBy('id').compile(),
        ]),
      ]);
    expect(packet[0]?.numAffectedRows).to.equal(1n);
    expect(packet[1].rows).to.deep.equal([{ id: 'x3-a' }, { id: 'x3-b' }]);
  });

  it('ends transactions that ran nothing and gives their connections back', async () => {
    // More than the pool's 20 connections: one not given back would leave the last waiting.
    for (let i = 0; i < 25; i += 1) {
      await db.transaction().execute(async () => undefined);
      await db
        .transaction()
        .execute(async () => {
          throw new Error('nothing to keep');
        })
        .catch(() => undefined);
    }
    expect(await ids('x-base')).to.deep.equal(['x-base']);
  });

  it('runs a transaction at the isolation level it asks for', async () => {
    await db
      .transaction()
      .setIsolationLevel('serializable')
      .execute((trx) => insert(trx, 'x4-a'));
    expect(await ids('x4-')).to.deep.equal(['x4-a']);
  });
});
