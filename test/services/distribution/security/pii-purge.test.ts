import { type ServiceError, status } from '@grpc/grpc-js';
import type { LeadRow } from '@leadflow/distribution/src/db/schema';
import { LeadStatus } from '@leadflow/proto/leadflow/admin/v1/leads';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { age, leadRows, personLead, submitLead } from '../../../support/pii-leads.js';
import { runLeadflow } from '../../../support/run-leadflow.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('PII purge', (database) => {
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let key: string;
  /** Persons 1 and 2 arrived 10 days ago, person 3 today; each was sold to a buyer that checks duplicates. */
  let oldIds: string[];
  let freshId: string;
  let original: LeadRow[];

  const db = () => stack.service.db;
  const auth = () => bearer(stack.service.adminToken);
  const purge = (olderThanDays: number) =>
    call(stack.admin.purgeSensitiveData.bind(stack.admin), { olderThanDays }, auth());
  const getLead = (leadId: string) => call(stack.admin.getLead.bind(stack.admin), { leadId }, auth());

  before(async () => {
    stack = await startTestDistribution(database());
    buyers = await startBuyerServer();
    buyers.behave('/lender', { kind: 'accept' });
    await stack.applyBuyers([testBuyer('dedupe-lender', buyers.url('/lender'), { duplicates: { lookbackDays: 30 } })]);
    ({ key } = await stack.createPublisher());
    oldIds = [await submitLead(stack, key, personLead(1).body), await submitLead(stack, key, personLead(2).body)];
    freshId = await submitLead(stack, key, personLead(3).body);
    await age(db(), oldIds, 10);
    original = await leadRows(db(), [...oldIds, freshId]);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });

  it('sold every lead before the purge, each under its own person', () => {
    expect(original.map((row) => row.status)).to.deep.equal(['sold', 'sold', 'sold']);
    expect(new Set(original.map((row) => row.ssn_hash)).size).to.equal(3);
  });

  it('purges the sensitive fields of leads older than N days only, keeping their hashes and outcome', async () => {
    expect((await purge(7)).purged).to.equal(2);
    const [first, second, fresh] = await leadRows(db(), [...oldIds, freshId]);
    for (const [purged, stored] of [
      [first, original[0]],
      [second, original[1]],
    ] as const) {
      expect(purged.sensitive).to.equal('');
      expect(purged.sensitive_purged_at)
        .to.be.a('number')
        .within(Date.now() - 60_000, Date.now());
      // Everything but the ciphertext and the purge time is as it was.
      expect({ ...purged, sensitive: stored.sensitive, sensitive_purged_at: null }).to.deep.equal(stored);
    }
    expect(fresh).to.deep.equal(original[2]);
    expect(fresh.sensitive).to.match(/^v1\.k1\./);
  });

  it('is idempotent: a second purge purges nothing and changes nothing', async () => {
    const purgedOnce = await leadRows(db(), [...oldIds, freshId]);
    expect((await purge(7)).purged).to.equal(0);
    expect(await leadRows(db(), [...oldIds, freshId])).to.deep.equal(purgedOnce);
  });

  it('shows a purged lead through GetLead with every personal field as [purged]', async () => {
    const { lead } = await getLead(oldIds[0]);
    expect(lead!.status).to.equal(LeadStatus.LEAD_STATUS_SOLD);
    expect(lead!.attempts).to.have.length(1);
    expect(lead!.fields).to.include({
      ssn: '[purged]',
      dob: '[purged]',
      bankAba: '[purged]',
      bankAccountNumber: '[purged]',
      driversLicenseNumber: '[purged]',
      firstName: '[purged]',
      lastName: '[purged]',
      email: '[purged]',
      address: '[purged]',
      homePhone: '[purged]',
      cellPhone: '[purged]',
      workPhone: '[purged]',
      userIp: '[purged]',
      city: 'San Francisco',
      state: 'CA',
      zip: '94102',
    });
    const fresh = await getLead(freshId);
    expect(fresh.lead!.fields).to.include({
      ssn: '*****1003',
      driversLicenseNumber: '*1003',
      firstName: 'M****',
      email: 'p*******@example.com',
    });
  });

  it('still recognises a purged person in the duplicate check', async () => {
    const again = await stack.submit(key, personLead(1).body);
    expect(again.outcome?.$case).to.equal('rejected');
    const leadId = again.outcome?.$case === 'rejected' ? again.outcome.value.leadId : '';
    const attempts = await db()
      .selectFrom('buyer_attempts')
      .select(['kind', 'reason'])
      .where('lead_id', '=', leadId)
      .execute();
    expect(attempts).to.deep.equal([{ kind: 'skip', reason: 'duplicate' }]);
    // A person never seen before still sells.
    expect((await stack.submit(key, personLead(4).body)).outcome?.$case).to.equal('sold');
  });

  it('splits the work when several runs (on MySQL: several instances) purge at once', async () => {
    // One service per embedded data directory: on SQLite the runs race inside one.
    const second = database().kind === 'mysql' ? await startTestDistribution(database()) : stack;
    try {
      const aged: string[] = [];
      for (let n = 10; n < 22; n++) aged.push(await submitLead(stack, key, personLead(n).body));
      await age(db(), aged, 20);
      const purgeOn = (instance: TestDistribution) =>
        call(
          instance.admin.purgeSensitiveData.bind(instance.admin),
          { olderThanDays: 7 },
          bearer(instance.service.adminToken),
        );
      const counts = await Promise.all([purge(7), purgeOn(second), purge(7), purgeOn(second)]);
      expect(counts.reduce((sum, { purged }) => sum + purged, 0)).to.equal(aged.length);
      for (const row of await leadRows(db(), aged)) expect(row).to.include({ sensitive: '' });
    } finally {
      if (second !== stack) await second.close();
    }
  });

  it('refuses a retention outside 1 to 3650 days', async () => {
    for (const olderThanDays of [0, -1, 3651]) {
      const error = (await purge(olderThanDays).catch((failure: ServiceError) => failure)) as ServiceError;
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
      expect(error.details).to.equal('older_than_days must be a whole number from 1 to 3650');
    }
  });

  it('purges through `leadflow pii purge`', async () => {
    await age(db(), [freshId], 3);
    const env = { LEADFLOW_ADMIN_ADDRESS: stack.address, LEADFLOW_ADMIN_TOKEN: stack.service.adminToken };
    const text = await runLeadflow(['pii', 'purge', '--older-than-days', '2'], env);
    expect(text).to.deep.equal({
      code: 0,
      stdout: 'Purged the sensitive fields of 1 lead created more than 2 days ago.\n',
      stderr: '',
    });
    const json = await runLeadflow(['pii', 'purge', '--older-than-days', '2', '--json'], env);
    expect(json.code).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal({ purged: 0 });
    const [fresh] = await leadRows(db(), [freshId]);
    expect(fresh.sensitive).to.equal('');
  });

  it('checks --older-than-days before calling the service', async () => {
    for (const argv of [[], ['--older-than-days', '0'], ['--older-than-days', '3651'], ['--older-than-days', 'ten']]) {
      const run = await runLeadflow(['pii', 'purge', ...argv], {
        LEADFLOW_ADMIN_ADDRESS: '127.0.0.1:1',
        LEADFLOW_ADMIN_TOKEN: 'unused',
      });
      expect(run.code, argv.join(' ')).to.equal(2);
      expect(run.stderr).to.match(/^leadflow: --older-than-days (is required|must be a whole number from 1 to 3650)\n/);
    }
  });
});
