import { isSensitiveLeadField } from '@leadflow/core/lead-fields';
import { createDatabase, type Db } from '@leadflow/distribution/src/db/database';
import type { LeadRow } from '@leadflow/distribution/src/db/schema';
import type { KeyRing } from '@leadflow/distribution/src/security/key-ring';
import { KeyedHasher } from '@leadflow/distribution/src/security/keyed-hash';
import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { plainOccurrences, uniqueLead } from '../../../support/data-files.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { legacyLeadRow, migrateToLegacySchema } from '../../../support/legacy-leads.js';
import { age, leadRows, submitLead } from '../../../support/pii-leads.js';
import {
  describeEachDatabase,
  productionSecretsEnv,
  sqliteDatabase,
  type TestDatabase,
} from '../../../support/test-database.js';

describe('personal data at rest on the embedded default: the data directory read byte by byte', () => {
  let database: TestDatabase;
  let dir: string;
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let leadId: string;
  let lead: ReturnType<typeof uniqueLead>;
  let stored: LeadRow;

  before(async () => {
    database = await sqliteDatabase();
    dir = database.env.LEADFLOW_DATA_DIR!;
    stack = await startTestDistribution(database);
    buyers = await startBuyerServer();
    lead = uniqueLead();
    buyers.behave('/echoing', { kind: 'reject', reason: echoedReason(lead.personal) });
    buyers.behave('/lender', { kind: 'accept' });
    // The richer buyer is posted first: it declines, quoting what it was sent.
    await stack.applyBuyers([
      testBuyer('echoing', buyers.url('/echoing'), { pricing: { type: 'fixed', price: '30.00' } }),
      testBuyer('lender', buyers.url('/lender')),
    ]);
    const { key } = await stack.createPublisher();
    leadId = await submitLead(stack, key, lead.body);
    [stored] = await leadRows(stack.service.db, [leadId]);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });

  it('holds no personal value of a stored lead in plain bytes in any file', async () => {
    // The scan sees what is written in plain: the city is not personal data and is there.
    expect(await plainOccurrences(dir, { city: String(lead.body.city) })).to.have.length.above(0);
    expect(await plainOccurrences(dir, lead.personal)).to.deep.equal([]);
  });

  it("keeps a buyer's reason without the personal values it echoed", async () => {
    const { lead: shown } = await call(
      stack.admin.getLead.bind(stack.admin),
      { leadId },
      bearer(stack.service.adminToken),
    );
    const echoing = shown!.attempts.find((attempt) => attempt.reason.startsWith('duplicate'));
    expect(echoing?.reason).to.equal(
      'duplicate: [redacted] [redacted], SSN [redacted], [redacted], born [redacted], account [redacted]',
    );
  });

  it('after the purge, holds neither the values nor their ciphertext in any file', async () => {
    const ciphertext = stored.sensitive.split('.').pop()!;
    expect(await plainOccurrences(dir, { ciphertext })).to.have.length.above(0);
    await age(stack.service.db, [leadId], 10);
    const { purged } = await call(
      stack.admin.purgeSensitiveData.bind(stack.admin),
      { olderThanDays: 7 },
      bearer(stack.service.adminToken),
    );
    expect(purged).to.equal(1);
    expect(await plainOccurrences(dir, { ...lead.personal, ciphertext })).to.deep.equal([]);
    const [after] = await leadRows(stack.service.db, [leadId]);
    expect(after).to.include({
      ssn_hash: stored.ssn_hash,
      email_hash: stored.email_hash,
      phone_hash: stored.phone_hash,
      sensitive: '',
    });
  });
});

/** A decline that quotes the applicant's values back, as some lenders' duplicate checks do. */
function echoedReason(personal: Record<string, string>): string {
  const [year, month, day] = personal.dob!.split('-');
  return [
    `duplicate: ${personal.firstName} ${personal.lastName}`,
    `SSN ${personal.ssn}`,
    personal.email,
    `born ${month}/${day}/${year}`,
    `account ${personal.bankAccountNumber}`,
  ].join(', ');
}

describeEachDatabase('upgrade: personal fields an older release kept in plain text', (database) => {
  /** More than one page of the migration, so that it runs in batches. */
  const LEGACY_LEADS = 1_100;
  let secretsEnv: Record<string, string>;
  let ring: KeyRing;
  let stack: TestDistribution | undefined;
  const sent = new Map<string, Record<string, string>>();
  const legacyIds: string[] = [];
  const purgedIds: string[] = [];
  /** Leads already in the new form, as a migration stopped halfway leaves them. */
  const sealedIds: string[] = [];
  const sealedBefore = new Map<string, string>();

  const env = () => ({ ...database().env, ...secretsEnv });
  const openDb = () => createDatabase(loadDistributionConfig(env()));

  async function seedLegacyDatabase(db: Db): Promise<void> {
    await migrateToLegacySchema(db, ring);
    await db
      .insertInto('publishers')
      .values({ id: 'pub_legacy', name: 'Legacy', rate_limit_per_minute: 60, payout_share_bps: 8000, created_at: 0 })
      .execute();
    const rows = [];
    for (let n = 0; n < LEGACY_LEADS; n++) {
      const lead = uniqueLead();
      const row = legacyLeadRow(lead.body, ring, 'pub_legacy', Date.now() - 1000 + n);
      sent.set(row.id!, lead.personal);
      if (n % 100 === 1) {
        purgedIds.push(row.id!);
        rows.push({ ...row, sensitive: '', sensitive_purged_at: Date.now() });
      } else if (n % 100 === 2) {
        sealedIds.push(row.id!);
        const fields: Record<string, string> = JSON.parse(row.fields);
        const personal = Object.fromEntries(Object.entries(fields).filter(([field]) => isSensitiveLeadField(field)));
        const sealed = {
          ...row,
          fields: JSON.stringify(
            Object.fromEntries(Object.entries(fields).filter(([field]) => !isSensitiveLeadField(field))),
          ),
          sensitive: ring.cipher.encrypt(
            JSON.stringify({ ...personal, ...JSON.parse(ring.cipher.decrypt(row.sensitive)) }),
          ),
        };
        sealedBefore.set(row.id!, sealed.sensitive);
        rows.push(sealed);
      } else {
        legacyIds.push(row.id!);
        rows.push(row);
      }
    }
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto('leads')
        .values(rows.slice(i, i + 200))
        .execute();
  }

  before(async function () {
    this.timeout(120_000);
    secretsEnv = database().kind === 'mysql' ? {} : productionSecretsEnv();
    const secrets = env();
    ring = { cipher: new PiiCipher(secrets.LEADFLOW_PII_KEYS!), hasher: new KeyedHasher(secrets.LEADFLOW_HMAC_KEY!) };
    const db = openDb();
    try {
      await seedLegacyDatabase(db);
    } finally {
      await db.destroy();
    }
  });
  after(async () => {
    await stack?.close();
  });

  it('refuses to start with keys that cannot read the stored leads, changing nothing', async () => {
    const other = productionSecretsEnv();
    const failure = await startTestDistribution(database(), {
      env: { ...secretsEnv, LEADFLOW_PII_KEYS: other.LEADFLOW_PII_KEYS!, LEADFLOW_HMAC_KEY: other.LEADFLOW_HMAC_KEY! },
    }).then(
      (started) => started.close().then(() => undefined),
      (error: Error) => error,
    );
    expect(failure?.message).to.match(
      /^the key ring does not match this database: no PII key of the ring decrypts its leads; start with the secrets that belong to this database/,
    );
    const db = openDb();
    try {
      const [row] = await leadRows(db, [legacyIds[0]!]);
      expect(JSON.parse(row.fields)).to.include({ firstName: sent.get(legacyIds[0]!)!.firstName });
    } finally {
      await db.destroy();
    }
  });

  it('encrypts them at the first start, in batches, every value kept', async function () {
    this.timeout(120_000);
    stack = await startTestDistribution(database(), { env: secretsEnv });
    const rows = await stack.service.db.selectFrom('leads').selectAll().orderBy('id').execute();
    expect(rows).to.have.length(LEGACY_LEADS);
    for (const row of rows) {
      const fields: Record<string, string> = JSON.parse(row.fields);
      expect(Object.keys(fields).filter(isSensitiveLeadField), row.id).to.deep.equal([]);
      if (purgedIds.includes(row.id)) {
        expect(row.sensitive, row.id).to.equal('');
        continue;
      }
      expect(JSON.parse(ring.cipher.decrypt(row.sensitive)), row.id).to.deep.equal(sent.get(row.id));
    }
  });

  it('leaves alone the leads already encrypted (a run stopped halfway resumes)', async () => {
    for (const row of await leadRows(stack!.service.db, sealedIds))
      expect(row.sensitive).to.equal(sealedBefore.get(row.id));
  });

  it('shows the upgraded leads masked', async () => {
    const { lead } = await call(
      stack!.admin.getLead.bind(stack!.admin),
      { leadId: legacyIds[0]! },
      bearer(stack!.service.adminToken),
    );
    const personal = sent.get(legacyIds[0]!)!;
    expect(lead!.fields.firstName).to.equal(`Z${'*'.repeat(personal.firstName!.length - 1)}`);
    expect(lead!.fields.cellPhone).to.equal(`******${personal.cellPhone!.slice(-4)}`);
  });

  it('masks, re-encrypts and purges a lead an instance of the old release writes during a rolling upgrade', async () => {
    const db = stack!.service.db;
    const auth = bearer(stack!.service.adminToken);
    const straggler = uniqueLead();
    const [sealedLater, purgedLater] = [
      legacyLeadRow(straggler.body, ring, 'pub_legacy'),
      legacyLeadRow(uniqueLead().body, ring, 'pub_legacy'),
    ];
    await db.insertInto('leads').values([sealedLater, purgedLater]).execute();

    const { lead } = await call(stack!.admin.getLead.bind(stack!.admin), { leadId: sealedLater.id! }, auth);
    expect(lead!.fields.email).to.equal(`z${'*'.repeat(straggler.personal.email!.indexOf('@') - 1)}@mailbox.example`);
    expect(lead!.fields.userIp).to.equal('*'.repeat(straggler.personal.userIp!.length));

    const { reencrypted } = await call(stack!.admin.reencryptSensitiveData.bind(stack!.admin), { batchSize: 0 }, auth);
    expect(reencrypted).to.equal(2);
    const [sealed] = await leadRows(db, [sealedLater.id!]);
    expect(Object.keys(JSON.parse(sealed.fields)).filter(isSensitiveLeadField)).to.deep.equal([]);
    expect(JSON.parse(ring.cipher.decrypt(sealed.sensitive))).to.deep.equal(straggler.personal);

    // Written again in the old form, then purged: the purge strips the plain fields too.
    await db
      .updateTable('leads')
      .set({ fields: purgedLater.fields, sensitive: purgedLater.sensitive })
      .where('id', '=', purgedLater.id!)
      .execute();
    await age(db, [purgedLater.id!], 10);
    const { purged } = await call(stack!.admin.purgeSensitiveData.bind(stack!.admin), { olderThanDays: 7 }, auth);
    expect(purged).to.equal(1);
    const [stripped] = await leadRows(db, [purgedLater.id!]);
    expect(Object.keys(JSON.parse(stripped.fields)).filter(isSensitiveLeadField)).to.deep.equal([]);
    expect(stripped.sensitive).to.equal('');
  });
});

describe('upgrade on the embedded default: the data directory read byte by byte', () => {
  let database: TestDatabase;
  let dir: string;
  let stack: TestDistribution | undefined;
  const secretsEnv = productionSecretsEnv();
  const ring: KeyRing = {
    cipher: new PiiCipher(secretsEnv.LEADFLOW_PII_KEYS!),
    hasher: new KeyedHasher(secretsEnv.LEADFLOW_HMAC_KEY!),
  };
  const watched = uniqueLead();

  before(async () => {
    database = await sqliteDatabase();
    dir = database.env.LEADFLOW_DATA_DIR!;
    const db = createDatabase(loadDistributionConfig({ ...database.env, ...secretsEnv }));
    try {
      await migrateToLegacySchema(db, ring);
      await db
        .insertInto('publishers')
        .values({ id: 'pub_legacy', name: 'Legacy', rate_limit_per_minute: 60, payout_share_bps: 8000, created_at: 0 })
        .execute();
      await db
        .insertInto('leads')
        .values([legacyLeadRow(watched.body, ring, 'pub_legacy'), legacyLeadRow(uniqueLead().body, ring, 'pub_legacy')])
        .execute();
    } finally {
      await db.destroy();
    }
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
  });

  it('finds the values in plain text before the upgrade', async () => {
    const found = await plainOccurrences(dir, watched.personal);
    expect(found.map((place) => place.split(': ')[1])).to.include.members([
      'firstName',
      'email',
      'address',
      'homePhone',
      'userIp',
    ]);
  });

  it('finds none of them in any file once the service has upgraded the database', async () => {
    stack = await startTestDistribution(database, { env: secretsEnv });
    expect(await plainOccurrences(dir, watched.personal)).to.deep.equal([]);
  });
});
