import { type ServiceError, status } from '@grpc/grpc-js';
import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { age, leadRows, personLead, piiKey, submitLead } from '../../../support/pii-leads.js';
import { stackCli } from '../../../support/run-leadflow.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('PII key rotation', (database) => {
  const k1 = piiKey('k1');
  const k2 = piiKey('k2');
  let stack: TestDistribution | undefined;
  let buyers: TestBuyerServer;
  /** What each lead's sensitive fields were sent as, by lead id. */
  const sent = new Map<string, Record<string, string>>();
  let purgedId: string;

  const running = () => {
    if (!stack) throw new Error('no service running');
    return stack;
  };
  const auth = () => bearer(running().service.adminToken);
  const reencrypt = (batchSize: number) =>
    call(running().admin.reencryptSensitiveData.bind(running().admin), { batchSize }, auth());
  /** Stops the running service and starts one over the same database holding `piiKeys`. */
  const restartWith = async (piiKeys: string) => {
    await stack?.close();
    stack = await startTestDistribution(database(), { env: { LEADFLOW_PII_KEYS: piiKeys } });
  };
  const submitPerson = async (n: number, key: string) => {
    const { body, sensitive } = personLead(n);
    const leadId = await submitLead(running(), key, body);
    sent.set(leadId, sensitive);
    return leadId;
  };
  const allLeads = () => running().service.db.selectFrom('leads').selectAll().orderBy('id').execute();

  before(async () => {
    buyers = await startBuyerServer();
    buyers.behave('/lender', { kind: 'accept' });
    await restartWith(k1);
    await running().applyBuyers([testBuyer('lender', buyers.url('/lender'))]);
    const { key } = await running().createPublisher();
    for (let n = 1; n <= 20; n++) await submitPerson(n, key);
    // A purged lead has nothing to re-encrypt.
    purgedId = [...sent.keys()][19];
    await age(running().service.db, [purgedId], 10);
    expect(
      (await call(running().admin.purgeSensitiveData.bind(running().admin), { olderThanDays: 7 }, auth())).purged,
    ).to.equal(1);
    sent.delete(purgedId);
    await restartWith(`${k2},${k1}`);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });

  it('moves every lead to the new key with nothing lost, even with two runs at once', async () => {
    expect((await allLeads()).filter((row) => row.sensitive.startsWith('v1.k1.'))).to.have.length(19);
    // Written under the new key already: left alone.
    const { key } = await running().createPublisher();
    await submitPerson(21, key);

    // Two runs racing over the same leads, as from two operators or two instances:
    // each lead is swapped by exactly one of them.
    const [first, second] = await Promise.all([reencrypt(2), reencrypt(3)]);
    expect([first.activeKeyId, second.activeKeyId]).to.deep.equal(['k2', 'k2']);
    expect(first.reencrypted + second.reencrypted).to.equal(19);

    const onlyK2 = new PiiCipher(k2);
    const rows = await allLeads();
    for (const row of rows.filter((row) => row.id !== purgedId)) {
      expect(row.sensitive, row.id).to.match(/^v1\.k2\./);
      expect(JSON.parse(onlyK2.decrypt(row.sensitive)), row.id).to.deep.equal(sent.get(row.id));
    }
    const [purged] = await leadRows(running().service.db, [purgedId]);
    expect(purged.sensitive).to.equal('');
  });

  it('is resumable: a second run re-encrypts nothing', async () => {
    expect(await reencrypt(0)).to.deep.equal({ reencrypted: 0, activeKeyId: 'k2' });
    const run = await stackCli(running()).leadflow(['pii', 'reencrypt']);
    expect(run).to.deep.equal({
      code: 0,
      stdout: 'Re-encrypted 0 leads: every stored lead is now under key k2.\n',
      stderr: '',
    });
  });

  it('serves every lead from a service that holds only the new key', async () => {
    await restartWith(k2);
    for (const [leadId, sensitive] of sent) {
      const { lead } = await call(running().admin.getLead.bind(running().admin), { leadId }, auth());
      expect(lead!.fields.ssn).to.equal(`*****${sensitive.ssn.slice(-4)}`);
      expect(lead!.fields.bankAccountNumber).to.equal(`****${sensitive.bankAccountNumber.slice(-4)}`);
    }
    const { lead } = await call(running().admin.getLead.bind(running().admin), { leadId: purgedId }, auth());
    expect(lead!.fields.ssn).to.equal('[purged]');
  });

  it('stops at a lead whose key the ring lacks, naming the lead and key id but no value', async () => {
    const [victim] = sent.keys();
    const db = running().service.db;
    const original = (await leadRows(db, [victim]))[0].sensitive;
    await db
      .updateTable('leads')
      .set({ sensitive: new PiiCipher(k1).encrypt(JSON.stringify(sent.get(victim))) })
      .where('id', '=', victim)
      .execute();
    try {
      const error = (await reencrypt(0).catch((failure: ServiceError) => failure)) as ServiceError;
      expect(error.code).to.equal(status.FAILED_PRECONDITION);
      expect(error.details).to.equal(
        `lead ${victim} cannot be decrypted (its key id is "k1"): if that key was dropped from LEADFLOW_PII_KEYS, add it back after the active key and run again`,
      );
    } finally {
      await db.updateTable('leads').set({ sensitive: original }).where('id', '=', victim).execute();
    }
  });

  it('refuses a batch size out of range', async () => {
    for (const batchSize of [-1, 10_001]) {
      const error = (await reencrypt(batchSize).catch((failure: ServiceError) => failure)) as ServiceError;
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
    }
  });
});
