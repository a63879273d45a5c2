import { expect } from 'chai';
import { createDatabase, isDuplicateKeyError, migrateToLatest, type Db } from '../../services/distribution/src/db/database.js';
import { GroupCommit } from '../../services/distribution/src/db/group-commit.js';
import type { PublisherRow } from '../../services/distribution/src/db/schema.js';
import { loadDistributionConfig } from '../../services/common/config.js';
import { describeEachDatabase } from '../support/test-database.js';

function publisher(id: string): PublisherRow {
  return { id, name: id, rate_limit_per_minute: 60, payout_share_bps: 8000, created_at: Date.now() };
}

describeEachDatabase('group commit of concurrent writes', (database) => {
  let db: Db;

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db);
  });
  after(() => db?.destroy());

  const ids = async () => (await db.selectFrom('publishers').select('id').orderBy('id').execute()).map((row) => row.id);

  it('commits writes that arrive together, each with its own result', async () => {
    const writes = new GroupCommit(db);
    const results = await Promise.all(
      ['a1', 'a2', 'a3'].map((id) =>
        writes.run(async (trx) => {
          await trx.insertInto('publishers').values(publisher(id)).execute();
          return id.toUpperCase();
        }),
      ),
    );
    expect(results).to.deep.equal(['A1', 'A2', 'A3']);
    expect(await ids()).to.include.members(['a1', 'a2', 'a3']);
  });

  it('reports a failing write to its caller only and commits the others', async () => {
    const writes = new GroupCommit(db);
    const insert = (id: string) => writes.run((trx) => trx.insertInto('publishers').values(publisher(id)).execute());
    const outcomes = await Promise.allSettled([insert('b1'), insert('b1'), insert('b2')]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(isDuplicateKeyError((outcomes[1] as PromiseRejectedResult).reason)).to.equal(true);
    expect(await ids()).to.include.members(['b1', 'b2']);
  });

  it('rolls back all of a failing write, never a part of it', async () => {
    const writes = new GroupCommit(db);
    const failing = writes.run(async (trx) => {
      await trx.insertInto('publishers').values(publisher('c1')).execute();
      throw new Error('write refused');
    });
    const other = writes.run((trx) => trx.insertInto('publishers').values(publisher('c2')).execute());
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
});
