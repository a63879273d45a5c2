import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ServiceError, status } from '@grpc/grpc-js';
import { createDatabase, type Db } from '@leadflow/distribution/src/db/database';
import { migrations } from '@leadflow/distribution/src/db/migrations/index';
import { newId } from '@leadflow/distribution/src/ids';
import { leadRow } from '@leadflow/distribution/src/leads/lead.repository';
import { personHashes, storedLead } from '@leadflow/distribution/src/leads/lead-record';
import { validateLead } from '@leadflow/distribution/src/leads/validation';
import { generatePublisherKey, hashPublisherKey } from '@leadflow/distribution/src/publishers/publisher-key';
import type { KeyRing } from '@leadflow/distribution/src/security/key-ring';
import { KeyedHasher } from '@leadflow/distribution/src/security/keyed-hash';
import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';
import type { ReturnLeadRequest } from '@leadflow/proto/leadflow/admin/v1/admin';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { CompiledQuery, Migrator, sql } from 'kysely';
import { startTestDistribution, type TestDistribution } from '../../../../support/distribution.js';
import { bearer, call } from '../../../../support/grpc.js';
import { publisherRow } from '../../../../support/publisher-row.js';
import { stackCli } from '../../../../support/run-leadflow.js';
import { type Market, personLead, simBuyer, soldOf, useMarket } from '../../../../support/selling.js';
import { describeEachDatabase, productionSecretsEnv, type TestDatabase } from '../../../../support/test-database.js';

/** The columns that hold ids, clickids, hashes, tokens and references: compared byte for byte. */
const BYTE_COMPARED = [
  'buyer_attempts.buyer_id',
  'buyer_attempts.id',
  'buyer_attempts.lead_id',
  'buyer_attempts.reference',
  'buyer_cap_counters.buyer_id',
  'buyer_cap_counters.period',
  'buyer_cap_holds.buyer_id',
  'buyer_cap_holds.lead_id',
  'buyer_person_holds.buyer_id',
  'buyer_person_holds.lead_id',
  'buyer_person_holds.person',
  'buyers.id',
  'key_checks.check_value',
  'key_checks.name',
  'lead_posts.buyer_id',
  'lead_posts.id',
  'lead_posts.lead_id',
  'lead_posts.reference',
  'lead_returns.buyer_id',
  'lead_returns.id',
  'lead_returns.lead_id',
  'lead_returns.publisher_id',
  'lead_returns.request_id',
  'leads.buyer_id',
  'leads.claim_token',
  'leads.clickid',
  'leads.email_hash',
  'leads.fingerprint',
  'leads.id',
  'leads.phone_hash',
  'leads.publisher_id',
  'leads.ssn_hash',
  'ledger_entries.account',
  'ledger_entries.id',
  'ledger_entries.lead_id',
  'publisher_events.id',
  'publisher_events.lead_id',
  'publisher_events.lease_token',
  'publisher_events.publisher_id',
  'publisher_keys.id',
  'publisher_keys.key_hash',
  'publisher_keys.publisher_id',
  'publisher_postbacks.publisher_id',
  'publishers.id',
  'sales.buyer_id',
  'sales.id',
  'sales.lead_id',
  'sales.publisher_id',
  'tree_settings.id',
];

/**
 * Text people write or read, and the values of closed lists: they keep the database's collation. A new
 * column must be in one list or the other.
 */
const TEXT = [
  'buyer_attempts.kind',
  'buyer_attempts.outcome',
  'buyer_attempts.reason',
  'buyer_cap_holds.periods',
  'buyers.definition',
  'buyers.name',
  'kysely_migration.name',
  'kysely_migration.timestamp',
  'kysely_migration_lock.id',
  'lead_posts.redirect_url',
  'lead_posts.resolved_by',
  'lead_posts.state',
  'lead_returns.note',
  'lead_returns.reason',
  'leads.fields',
  'leads.reason',
  'leads.redirect_url',
  'leads.sensitive',
  'leads.state',
  'leads.status',
  'leads.tracking',
  'ledger_entries.entry_type',
  'publisher_events.body',
  'publisher_events.last_error',
  'publisher_events.state',
  'publisher_events.type',
  'publisher_keys.key_hint',
  'publisher_postbacks.signing_secret',
  'publisher_postbacks.url',
  'publishers.name',
  'tree_settings.settings',
];

const FOREIGN_KEYS = [
  'buyer_attempts.lead_id -> leads.id',
  'lead_returns.lead_id -> leads.id',
  'leads.publisher_id -> publishers.id',
  'ledger_entries.lead_id -> leads.id',
  'publisher_keys.publisher_id -> publishers.id',
  'sales.lead_id -> leads.id',
];

/** Every text column of the database (MySQL) as `table.column` with its collation. */
async function collations(db: Db): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; collation: string }>`
    select concat(table_name, '.', column_name) as name, collation_name as collation
    from information_schema.columns
    where table_schema = database() and collation_name is not null`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.name, row.collation]));
}

async function foreignKeys(db: Db): Promise<string[]> {
  const { rows } = await sql<{ key: string }>`
    select concat(table_name, '.', column_name, ' -> ', referenced_table_name, '.', referenced_column_name) as \`key\`
    from information_schema.key_column_usage
    where table_schema = database() and referenced_table_name is not null`.execute(db);
  return rows.map((row) => row.key).sort();
}

/** The index MySQL picks for a query. */
async function indexOf(db: Db, query: { sql: string; parameters: readonly unknown[] }): Promise<string | null> {
  const { rows } = await db.executeQuery<{ key: string | null }>(
    CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
  );
  return rows[0]!.key;
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: ServiceError) => error,
  );
}

/** The same clickid in two cases, and a third spelling no lead was sent with. */
function caseVariants(): { upper: string; lower: string; mixed: string } {
  const lower = `case-${randomBytes(4).toString('hex')}-id`;
  return { upper: lower.toUpperCase(), lower, mixed: `C${lower.slice(1)}` };
}

function returnRequest(request: Partial<ReturnLeadRequest>): ReturnLeadRequest {
  return {
    requestId: '',
    leadId: '',
    clickid: '',
    buyer: '',
    reason: 'fraud',
    note: '',
    creditCents: 0,
    dryRun: false,
    ...request,
  };
}

describeEachDatabase('clickids that differ only in case', (database) => {
  const market = useMarket(database);

  /** A lender that buys every lead and takes returns for fraud. */
  async function lender(m: Market): Promise<void> {
    const simulator = await m.simulate([{ path: '/post', kind: 'direct_post', price: { fixed: 1 } }]);
    await m.apply([
      simBuyer('case-lender', simulator.url, {
        post: '/post',
        pricing: { type: 'fixed', price: '40.00' },
        returns: { windowDays: 7, reasons: ['fraud'] },
      }),
    ]);
  }

  it('are two leads of one publisher, each answered, replayed and found by its own clickid', async () => {
    const m = market();
    await lender(m);
    const { upper, lower, mixed } = caseVariants();
    const first = personLead({ clickid: upper });
    const second = personLead({ clickid: lower });

    const soldFirst = soldOf(await m.submit(first));
    const soldSecond = soldOf(await m.submit(second));
    expect(soldSecond.leadId).not.to.equal(soldFirst.leadId);
    expect(await m.count('sales', { column: 'publisher_id', value: m.publisherId })).to.equal(2);
    // A retry of each is a replay of its own lead.
    expect(soldOf(await m.submit(first)).leadId).to.equal(soldFirst.leadId);
    expect(soldOf(await m.submit(second)).leadId).to.equal(soldSecond.leadId);

    const statusOf = (clickid: string) =>
      call(m.stack.client.getLeadStatus.bind(m.stack.client), { webmasterKey: m.key, clickid });
    expect((await statusOf(upper)).outcome?.value?.leadId).to.equal(soldFirst.leadId);
    expect((await statusOf(lower)).outcome?.value?.leadId).to.equal(soldSecond.leadId);
    expect((await failure(statusOf(mixed))).code).to.equal(status.NOT_FOUND);

    const auth = bearer(m.stack.service.adminToken);
    const findLead = (clickid: string, publisherId = '') =>
      call(m.stack.admin.findLead.bind(m.stack.admin), { clickid, publisherId }, auth);
    expect((await findLead(upper)).lead?.leadId).to.equal(soldFirst.leadId);
    expect((await findLead(lower, m.publisherId)).lead?.leadId).to.equal(soldSecond.leadId);
    expect((await failure(findLead(mixed))).code).to.equal(status.NOT_FOUND);
  });

  it('are returned each by its own clickid from a returns file', async () => {
    const m = market();
    await lender(m);
    const { upper, lower, mixed } = caseVariants();
    const soldUpper = soldOf(await m.submit(personLead({ clickid: upper })));
    const soldLower = soldOf(await m.submit(personLead({ clickid: lower })));
    const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-case-returns-'));
    const file = path.join(dir, 'returns.csv');
    await writeFile(
      file,
      [
        'lead_id,clickid,buyer,reason,note,amount',
        `,${lower},case-lender,fraud,,`,
        `,${upper},case-lender,fraud,,`,
        `,${mixed},case-lender,fraud,,`,
      ].join('\n'),
    );
    const imported = await stackCli(m.stack).leadflow(['returns', 'import', file, '--json']);
    const rows: { line: number; outcome: string; leadId: string; reason: string }[] = JSON.parse(imported.stdout).rows;
    expect(rows.map(({ line, outcome, leadId }) => ({ line, outcome, leadId }))).to.deep.equal([
      { line: 2, outcome: 'recorded', leadId: soldLower.leadId },
      { line: 3, outcome: 'recorded', leadId: soldUpper.leadId },
      { line: 4, outcome: 'refused', leadId: '' },
    ]);
    expect(rows[2]!.reason).to.include('no lead with this clickid');
  });

  it('and request ids that differ only in case record two returns', async () => {
    const m = market();
    await lender(m);
    const leadIds = [soldOf(await m.submit(personLead())).leadId, soldOf(await m.submit(personLead())).leadId];
    const requestId = `Return-${randomBytes(4).toString('hex')}`;
    const auth = bearer(m.stack.service.adminToken);
    const returnLead = (request: Partial<ReturnLeadRequest>) =>
      call(m.stack.admin.returnLead.bind(m.stack.admin), returnRequest(request), auth);
    const first = await returnLead({ requestId, leadId: leadIds[0] });
    const second = await returnLead({ requestId: requestId.toLowerCase(), leadId: leadIds[1] });
    expect([first.alreadyRecorded, second.alreadyRecorded]).to.deep.equal([false, false]);
    expect(second.leadReturn?.leadId).to.equal(leadIds[1]);
    expect(second.leadReturn?.returnId).not.to.equal(first.leadReturn?.returnId);
  });
});

describeEachDatabase(
  'identifier columns on MySQL: byte-compared, joined and indexed',
  (database) => {
    let stack: TestDistribution;
    before(async () => {
      stack = await startTestDistribution(database());
    });
    after(async () => {
      await stack?.close();
    });

    it('gives every id, clickid, hash, token and reference column its binary collation, and text none', async () => {
      const columns = await collations(stack.service.db);
      expect(Object.keys(columns).sort()).to.deep.equal([...BYTE_COMPARED, ...TEXT].sort());
      for (const column of BYTE_COMPARED) expect(columns[column], column).to.equal('utf8mb4_bin');
      for (const column of TEXT) expect(columns[column], column).not.to.equal('utf8mb4_bin');
    });

    it('keeps the foreign keys', async () => {
      expect(await foreignKeys(stack.service.db)).to.deep.equal(FOREIGN_KEYS);
    });

    it('finds a lead by its clickid through the indexes', async () => {
      const db = stack.service.db;
      const publisher = await stack.createPublisher();
      const clickid = caseVariants().upper;
      await stack.submit(publisher.key, personLead({ clickid }));
      const byPublisher = db
        .selectFrom('leads')
        .selectAll()
        .where('publisher_id', '=', publisher.id)
        .where('clickid', '=', clickid)
        .compile();
      expect(await indexOf(db, byPublisher)).to.equal('leads_publisher_clickid_unique');
      const byClickid = db.selectFrom('leads').selectAll().where('clickid', '=', clickid).compile();
      expect(await indexOf(db, byClickid)).to.equal('leads_clickid_idx');
    });
  },
  ['mysql'],
);

/** The last migration of the release before clickids were compared byte for byte. */
const PREVIOUS_SCHEMA = '2026_11_28_0002_publisher_postbacks';

/**
 * What a start that died inside the migration leaves: every foreign key dropped and the first tables
 * changed, the others not, and the migration not recorded.
 */
async function stopHalfway(db: Db): Promise<void> {
  const { rows } = await sql<{ table_name: string; name: string }>`
    select table_name as table_name, constraint_name as name from information_schema.key_column_usage
    where table_schema = database() and referenced_table_name is not null`.execute(db);
  for (const row of rows)
    await sql`alter table ${sql.id(row.table_name)} drop foreign key ${sql.id(row.name)}`.execute(db);
  await sql`alter table publishers modify id varchar(40) character set utf8mb4 collate utf8mb4_bin not null`.execute(
    db,
  );
}

describeUpgrade('upgrade: a database of the release before', false);
describeUpgrade('upgrade: a database whose first start died inside the migration', true, ['mysql']);

function describeUpgrade(title: string, halfway: boolean, kinds?: TestDatabase['kind'][]): void {
  describeEachDatabase(
    title,
    (database) => {
      /** The MySQL variant's environment has its secrets; the embedded default gets them the same way here. */
      const secretsEnv = productionSecretsEnv();
      const env = () => ({ ...secretsEnv, ...database().env });
      let ring: KeyRing;
      const key = generatePublisherKey();
      const { upper, lower } = caseVariants();
      const leadId = newId('lead');
      let rowsBefore: Record<string, unknown[]>;
      const stacks: TestDistribution[] = [];

      /** The rows of every table of leadflow's, in a stable order. */
      async function everyRow(db: Db): Promise<Record<string, unknown[]>> {
        const tables = [
          'publishers',
          'publisher_keys',
          'buyers',
          'leads',
          'buyer_attempts',
          'sales',
          'ledger_entries',
          'lead_returns',
          'key_checks',
          'tree_settings',
        ] as const;
        const rows: Record<string, unknown[]> = {};
        for (const table of tables)
          rows[table] = await db.selectFrom(table).selectAll().orderBy(sql.raw('1')).execute();
        return rows;
      }

      before(async function () {
        this.timeout(60_000);
        const secrets = env();
        ring = {
          cipher: new PiiCipher(secrets.LEADFLOW_PII_KEYS!),
          hasher: new KeyedHasher(secrets.LEADFLOW_HMAC_KEY!),
        };
        const db = createDatabase(loadDistributionConfig(secrets));
        try {
          const all = migrations(ring);
          const names = Object.keys(all);
          const previous = Object.fromEntries(
            names.slice(0, names.indexOf(PREVIOUS_SCHEMA) + 1).map((name) => [name, all[name]!]),
          );
          const { error } = await new Migrator({
            db,
            provider: { getMigrations: async () => previous },
          }).migrateToLatest();
          if (error) throw error;
          await seed(db);
          rowsBefore = await everyRow(db);
          if (halfway) await stopHalfway(db);
        } finally {
          await db.destroy();
        }
      });
      after(async () => {
        for (const stack of stacks) await stack.close();
      });

      /** A publisher with a key, and a lead of it sold, posted, booked and returned, as that release wrote them. */
      async function seed(db: Db): Promise<void> {
        const now = Date.now();
        await db.insertInto('publishers').values(publisherRow('pub_UPGRADE')).execute();
        await db
          .insertInto('publisher_keys')
          .values({
            id: 'key_UPGRADE',
            publisher_id: 'pub_UPGRADE',
            key_hash: hashPublisherKey(key),
            key_hint: key.slice(-4),
            created_at: now,
            revoked_at: null,
          })
          .execute();
        const validation = validateLead(
          Lead.fromPartial(personLead({ clickid: upper }) as Partial<Lead>),
          [],
          new Date(now),
        );
        if (!validation.ok) throw new Error(JSON.stringify(validation.errors));
        const identity = {
          id: leadId,
          publisherId: 'pub_UPGRADE',
          fingerprint: 'f'.repeat(64),
          claimToken: 'clm_UPGRADE',
          now,
          person: personHashes(validation.lead, ring.hasher),
        };
        const row = leadRow(storedLead(validation.lead, identity, ring.cipher));
        await db
          .insertInto('leads')
          .values({ ...row, status: 'sold', completed_at: now, buyer_id: 'buy_UPGRADE', payout_cents: 3200 })
          .execute();
        await db
          .insertInto('buyer_attempts')
          .values({
            id: 'att_UPGRADE',
            lead_id: leadId,
            buyer_id: 'buy_UPGRADE',
            kind: 'post',
            started_at: now,
            duration_ms: 12,
            outcome: 'accepted',
            http_status: 200,
            bid_cents: null,
            price_cents: 4000,
            reference: 'Ref-UPGRADE',
            reason: null,
          })
          .execute();
        await db
          .insertInto('sales')
          .values({
            id: 'sale_UPGRADE',
            lead_id: leadId,
            publisher_id: 'pub_UPGRADE',
            buyer_id: 'buy_UPGRADE',
            charge_cents: 4000,
            payout_cents: 3200,
            margin_cents: 800,
            created_at: now,
          })
          .execute();
        await db
          .insertInto('ledger_entries')
          .values([
            {
              id: 'led_UPGRADE1',
              lead_id: leadId,
              entry_type: 'buyer_charge',
              account: 'buyer:buy_UPGRADE',
              amount_cents: -4000,
              created_at: now,
            },
            {
              id: 'led_UPGRADE2',
              lead_id: leadId,
              entry_type: 'publisher_payout',
              account: 'publisher:pub_UPGRADE',
              amount_cents: 3200,
              created_at: now,
            },
            {
              id: 'led_UPGRADE3',
              lead_id: leadId,
              entry_type: 'platform_margin',
              account: 'platform',
              amount_cents: 800,
              created_at: now,
            },
          ])
          .execute();
        await db
          .insertInto('lead_returns')
          .values({
            id: 'ret_UPGRADE',
            lead_id: leadId,
            request_id: 'Request-UPGRADE',
            buyer_id: 'buy_UPGRADE',
            publisher_id: 'pub_UPGRADE',
            reason: 'fraud',
            note: null,
            credit_cents: 4000,
            clawback_cents: 3200,
            margin_cents: 800,
            sold_at: now,
            returned_at: now,
          })
          .execute();
      }

      it('migrates at the first start, with several instances starting at once, every row kept', async function () {
        this.timeout(60_000);
        // One service per data directory on SQLite; on MySQL two race for the migration.
        const count = database().kind === 'mysql' ? 2 : 1;
        stacks.push(
          ...(await Promise.all(
            Array.from({ length: count }, () => startTestDistribution(database(), { env: env() })),
          )),
        );
        const db = stacks[0]!.service.db;
        expect(await everyRow(db)).to.deep.equal(rowsBefore);
        if (database().kind === 'mysql') {
          const columns = await collations(db);
          for (const column of BYTE_COMPARED) expect(columns[column], column).to.equal('utf8mb4_bin');
          expect(await foreignKeys(db)).to.deep.equal(FOREIGN_KEYS);
        }
      });

      it('then takes a lead under the clickid in another case as a new lead, and finds each by its own', async () => {
        const stack = stacks[0]!;
        const answer = await stack.submit(key, personLead({ clickid: lower }));
        const newLeadId = answer.outcome?.value?.leadId;
        expect(newLeadId).to.be.a('string').and.not.equal(leadId);
        const statusOf = (clickid: string) =>
          call(stack.client.getLeadStatus.bind(stack.client), { webmasterKey: key, clickid });
        expect((await statusOf(upper)).outcome).to.deep.include({ $case: 'returned' });
        expect((await statusOf(upper)).outcome?.value?.leadId).to.equal(leadId);
        expect((await statusOf(lower)).outcome?.value?.leadId).to.equal(newLeadId);
      });
    },
    kinds,
  );
}
