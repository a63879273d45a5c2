import { createDatabase, type Db, isDuplicateKeyError, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { rowsInsert } from '@leadflow/distribution/src/db/insert-rows';
import type { LeadPostState } from '@leadflow/distribution/src/db/schema';
import { executeTogether, runPlanned } from '@leadflow/distribution/src/db/statements-together';
import { leadInsert } from '@leadflow/distribution/src/leads/lead.repository';
import type { StoredLead } from '@leadflow/distribution/src/leads/stored-lead';
import { intentWrite, type NewIntent } from '@leadflow/distribution/src/selling/lead-post.repository';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { CompiledQuery } from 'kysely';
import { testKeyRing } from '../../../support/key-ring.js';
import { publisherRow } from '../../../support/publisher-row.js';
import { describeEachDatabase } from '../../../support/test-database.js';
import { watchedDb } from '../../../support/watched-db.js';

function lead(id: string, claimToken: string): StoredLead {
  return {
    id,
    publisherId: 'pub-together',
    clickid: id,
    fingerprint: id,
    status: 'processing',
    test: false,
    claimToken,
    claimedAt: Date.now(),
    createdAt: Date.now(),
    completedAt: null,
    priceFloorCents: 0,
    loanAmountCents: 100_000,
    incomeNetMonthlyCents: null,
    state: 'CA',
    person: { ssn: `ssn-${id}`, email: `email-${id}`, phone: `phone-${id}` },
    fieldsJson: '{}',
    sensitive: '',
    sensitivePurgedAt: null,
    trackingJson: '{}',
    buyerId: null,
    payoutCents: null,
    redirectUrl: null,
    reason: null,
    processingMs: null,
  };
}

describeEachDatabase('statements sent together', (database) => {
  let db: Db;

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db, testKeyRing());
    await db.insertInto('publishers').values(publisherRow('pub-together')).execute();
  });
  after(() => db?.destroy());

  const names = async (prefix: string) =>
    (
      await db.selectFrom('publishers').select(['id', 'name']).where('id', 'like', `${prefix}%`).orderBy('id').execute()
    ).map((row) => `${row.id} ${row.name}`);

  const rename = (id: string, name: string) =>
    db.updateTable('publishers').set({ name }).where('id', '=', id).compile();

  it('gives each statement its result in order, and nothing for one left out', async () => {
    await db.insertInto('publishers').values(publisherRow('t1-a')).execute();
    const sent: string[] = [];
    const [inserted, left, read, renamed, missed] = await executeTogether(watchedDb(db, sent), [
      rowsInsert(db, 'publishers', [publisherRow('t1-b')]),
      undefined,
      db.selectFrom('publishers').select('id').where('id', 'like', 't1-%').orderBy('id').compile(),
      rename('t1-a', 'renamed'),
      rename('t1-none', 'nobody'),
    ]);
    expect(inserted?.numAffectedRows).to.equal(1n);
    expect(left).to.equal(undefined);
    expect(read.rows, 'a statement sees the ones before it').to.deep.equal([{ id: 't1-a' }, { id: 't1-b' }]);
    expect(renamed.numAffectedRows).to.equal(1n);
    expect(missed.numAffectedRows).to.equal(0n);
    expect(await names('t1-')).to.deep.equal(['t1-a renamed', 't1-b t1-b']);
    expect(sent, 'one round trip on MySQL, one a statement on SQLite').to.have.length(
      database().kind === 'mysql' ? 1 : 4,
    );
  });

  it('splits statements into packets well under the packet bound of the server, each run once', async () => {
    const lengthOf = (characters: number) =>
      CompiledQuery.raw('select length(?) as n', ['a'.repeat(characters)]) as CompiledQuery<{ n: number }>;
    const sent: string[] = [];
    const results = await executeTogether(watchedDb(db, sent), [
      lengthOf(200_000),
      lengthOf(10),
      lengthOf(150_000),
      lengthOf(20),
      lengthOf(30),
    ]);
    expect(results.map((result) => Number(result.rows[0]?.n))).to.deep.equal([200_000, 10, 150_000, 20, 30]);
    expect(sent, 'two packets of at most 1 MiB (a character counted as 3 bytes) on MySQL').to.have.length(
      database().kind === 'mysql' ? 2 : 5,
    );
  });

  it('stores values that read as SQL as they were written', async () => {
    const hostile = ["x'); drop table publishers; --", "\\'; delete from publishers; -- ;", 'a;b', '?', '`; select 1'];
    await executeTogether(
      db,
      hostile.map((name, index) => rowsInsert(db, 'publishers', [publisherRow(`t2-${index}`, name)])),
    );
    expect(await names('t2-')).to.deep.equal(hostile.map((name, index) => `t2-${index} ${name}`));
    expect(await names('pub-together')).to.have.length(1);
  });

  it('runs none of the statements after one that fails, and a transaction keeps none of them', async () => {
    const failing = (prefix: string) => [
      rowsInsert(db, 'publishers', [publisherRow(`${prefix}-a`)]),
      rowsInsert(db, 'publishers', [publisherRow(`${prefix}-a`, 'again')]),
      rowsInsert(db, 'publishers', [publisherRow(`${prefix}-b`)]),
    ];
    expect(await executeTogether(db, failing('t3')).catch(isDuplicateKeyError)).to.equal(true);
    expect(await names('t3-')).to.deep.equal(['t3-a t3-a']);
    const inTransaction = db.transaction().execute((trx) => executeTogether(trx, failing('t4')));
    expect(await inTransaction.catch(isDuplicateKeyError)).to.equal(true);
    expect(await names('t4-')).to.deep.equal([]);
  });

  describe('the intent to post a lead', () => {
    const intent = (leadId: string, buyerId: string, claimToken = 'claim-1'): NewIntent => ({
      id: `pst-${leadId}-${buyerId}`,
      leadId,
      buyerId,
      claimToken,
      chargeCents: 1500,
      payoutCents: 1200,
      createdAt: Date.now(),
    });
    const posts = async (leadId: string) =>
      (
        await db
          .selectFrom('lead_posts')
          .select(['buyer_id', 'state'])
          .where('lead_id', '=', leadId)
          .orderBy('buyer_id')
          .execute()
      ).map((row) => `${row.buyer_id} ${row.state}`);
    const settle = (leadId: string, buyerId: string, state: LeadPostState) =>
      db
        .updateTable('lead_posts')
        .set({ state })
        .where('lead_id', '=', leadId)
        .where('buyer_id', '=', buyerId)
        .execute();
    const open = (value: NewIntent) => db.transaction().execute((trx) => runPlanned(trx, intentWrite(trx, value)));

    it('is written while the claim holds, no other post is open and the buyer had none', async () => {
      await db.executeQuery(leadInsert(db, lead('led-t5', 'claim-1')));
      expect(await open(intent('led-t5', 'buyer-a'))).to.equal(undefined);
      expect(await posts('led-t5')).to.deep.equal(['buyer-a pending']);
      await settle('led-t5', 'buyer-a', 'rejected');
      expect(await open(intent('led-t5', 'buyer-b'))).to.equal(undefined);
      expect(await posts('led-t5')).to.deep.equal(['buyer-a rejected', 'buyer-b pending']);
    });

    it('leaves nothing behind when it is refused', async () => {
      await db.executeQuery(leadInsert(db, lead('led-t6', 'claim-1')));
      expect(await open(intent('led-t6', 'buyer-a', 'claim-of-another'))).to.equal('claim_lost');
      expect(await posts('led-t6')).to.deep.equal([]);
      expect(await open(intent('led-t6', 'buyer-a'))).to.equal(undefined);
      expect(await open(intent('led-t6', 'buyer-b')), 'buyer-a may hold the lead').to.equal('open_post');
      await settle('led-t6', 'buyer-a', 'failed');
      const again = open({ ...intent('led-t6', 'buyer-a'), id: 'pst-led-t6-again' });
      expect(await again.catch(isDuplicateKeyError), 'posted to buyer-a before').to.equal(true);
      expect(await posts('led-t6')).to.deep.equal(['buyer-a failed']);
    });
  });
});
