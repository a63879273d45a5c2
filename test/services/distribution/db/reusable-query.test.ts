import { createDatabase, type Db, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { ReusableQuery } from '@leadflow/distribution/src/db/reusable-query';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { sql } from 'kysely';
import { testKeyRing } from '../../../support/key-ring.js';
import { publisherRow } from '../../../support/publisher-row.js';
import { describeEachDatabase } from '../../../support/test-database.js';
import { watchedDb } from '../../../support/watched-db.js';

type PublisherChange = { name?: string; payout_share_bps?: number; rate_limit_per_minute?: number };

describeEachDatabase('queries compiled once and run with new values', (database) => {
  let db: Db;
  /** The SQL each run sent, in order. */
  let sent: string[];

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db, testKeyRing());
    await db
      .insertInto('publishers')
      .values(['q-a', 'q-b', 'q-c'].map((id) => publisherRow(id)))
      .execute();
  });
  after(() => db?.destroy());
  beforeEach(() => (sent = []));

  const watched = () => watchedDb(db, sent);

  const names = async () =>
    (await db.selectFrom('publishers').select(['id', 'name', 'payout_share_bps']).orderBy('id').execute()).map(
      (row) => `${row.id} ${row.name} ${row.payout_share_bps}`,
    );

  it('binds each run its own values, with one SQL text per set of columns given', async () => {
    const update = new ReusableQuery((target: Db, values: { id: string; row: PublisherChange }) =>
      target.updateTable('publishers').set(values.row).where('id', '=', values.id),
    );
    const changed = async (id: string, row: PublisherChange) =>
      (await update.execute(watched(), { id, row })).numAffectedRows;
    expect(await changed('q-a', { name: "O'Brien; --", payout_share_bps: 7000 })).to.equal(1n);
    expect(await changed('q-b', { name: 'second', payout_share_bps: 6000 })).to.equal(1n);
    expect(await changed('q-c', { name: 'third', payout_share_bps: undefined })).to.equal(1n);
    expect(await changed('q-none', { name: 'nobody' })).to.equal(0n);
    expect(await names()).to.deep.equal(["q-a O'Brien; -- 7000", 'q-b second 6000', 'q-c third 8000']);
    expect(sent[0]).to.equal(sent[1]);
    expect(sent[2], 'an undefined column is left out, as Kysely leaves it out').to.not.include('payout_share_bps');
    expect(sent[2]).to.equal(sent[3]);
    expect(sent.join('\n')).to.not.include('\u0000');
  });

  it('reads rows with the values of each run', async () => {
    const byId = new ReusableQuery((target: Db, values: { id: string }) =>
      target.selectFrom('publishers').select(['id', 'rate_limit_per_minute']).where('id', '=', values.id),
    );
    expect((await byId.execute(db, { id: 'q-b' })).rows).to.deep.equal([{ id: 'q-b', rate_limit_per_minute: 60 }]);
    expect((await byId.execute(db, { id: 'q-c' })).rows).to.deep.equal([{ id: 'q-c', rate_limit_per_minute: 60 }]);
    expect((await byId.execute(db, { id: 'q-none' })).rows).to.deep.equal([]);
  });

  it('compiles at every run a query whose values do not come out one for one among its parameters', async () => {
    const twice = new ReusableQuery((target: Db, values: { id: string }) =>
      target
        .selectFrom('publishers')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', values.id), eb('name', '=', values.id)])),
    );
    const inSql = new ReusableQuery((target: Db, values: { id: string }) =>
      target.selectFrom('publishers').select('id').where('id', '=', sql.lit(values.id)),
    );
    for (const id of ['q-a', 'q-c']) {
      expect((await twice.execute(db, { id })).rows).to.deep.equal([{ id }]);
      expect((await inSql.execute(db, { id })).rows).to.deep.equal([{ id }]);
    }
  });
});
