import { createDatabase, type Db, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { insertRows } from '@leadflow/distribution/src/db/insert-rows';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { sql } from 'kysely';
import { testKeyRing } from '../../../support/key-ring.js';
import { publisherRow } from '../../../support/publisher-row.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('inserting rows through compiled statements', (database) => {
  let db: Db;

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db, testKeyRing());
  });
  after(() => db?.destroy());

  const stored = async (prefix: string) =>
    (
      await db
        .selectFrom('publishers')
        .select(['id', 'name', 'payout_share_bps'])
        .where('id', 'like', `${prefix}%`)
        .orderBy('id')
        .execute()
    ).map((row) => `${row.id} ${row.name} ${row.payout_share_bps}`);

  it('stores the values of every call, however often a shape of statement comes again', async () => {
    await insertRows(db, 'publishers', [publisherRow('r1-a'), publisherRow('r1-b', "O'Brien; --")]);
    await insertRows(db, 'publishers', [
      publisherRow('r1-c', 'third'),
      { ...publisherRow('r1-d'), payout_share_bps: 7000 },
    ]);
    await db.transaction().execute((trx) => insertRows(trx, 'publishers', [publisherRow('r1-e')]));
    await insertRows(db, 'publishers', [publisherRow('r1-f')]);
    expect(await stored('r1-')).to.deep.equal([
      'r1-a r1-a 8000',
      "r1-b O'Brien; -- 8000",
      'r1-c third 8000',
      'r1-d r1-d 7000',
      'r1-e r1-e 8000',
      'r1-f r1-f 8000',
    ]);
  });

  it('takes rows whose columns differ in order or number, and SQL expressions as values', async () => {
    const { id, name, ...rest } = publisherRow('r2-a');
    await insertRows(db, 'publishers', [publisherRow('r2-a'), { name: 'second', id: 'r2-b', ...rest }]);
    await insertRows(db, 'publishers', [
      { ...publisherRow('r2-c'), name: sql<string>`${'from sql'}` as unknown as string },
    ]);
    expect(await stored('r2-')).to.deep.equal(['r2-a r2-a 8000', 'r2-b second 8000', 'r2-c from sql 8000']);
    expect([id, name]).to.deep.equal(['r2-a', 'r2-a']);
  });

  it('inserts nothing for no rows', async () => {
    await insertRows(db, 'publishers', []);
    expect(await stored('r3-')).to.deep.equal([]);
  });
});
