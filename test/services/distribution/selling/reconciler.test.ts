import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import type { BuyerService } from '@leadflow/distribution/src/buyers/buyer.service';
import { createDatabase, type Db, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { StatusError } from '@leadflow/distribution/src/errors';
import type { UnconfirmedLead } from '@leadflow/distribution/src/leads/stored-lead';
import type { LeadResolution } from '@leadflow/distribution/src/selling/lead-resolution';
import { Reconciler } from '@leadflow/distribution/src/selling/reconciler';
import { Lead, type SubmitLeadResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { bearer, call } from '../../../support/grpc.js';
import { testKeyRing } from '../../../support/key-ring.js';
import { personLead, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';
import { waitUntil } from '../../../support/wait-until.js';

/*
 * The reconciler's settleAfter policy: a lead held for a buyer that never answered its post is closed
 * as not sold once the buyer's settleAfter has passed, and offered to no one else.
 */

const REPLY = { format: 'json', accepted: { path: '$.accepted', equals: 'true' } };

function buyer(name: string, url: string, price: string, tier: number, integration: Record<string, unknown> = {}) {
  return {
    name,
    tier,
    pricing: { type: 'fixed', price },
    caps: { leadsPerDay: 100 },
    integration: {
      mode: 'direct_post',
      local: true,
      timeoutMs: 500,
      ...integration,
      post: { url, mapping: { leadId: 'leadId', email: 'email' }, response: REPLY },
    },
  };
}

describeEachDatabase("the reconciler: a buyer's settleAfter closes the leads it never answered", (database) => {
  const market = useMarket(database, { env: { LEADFLOW_RECONCILE_INTERVAL_MS: '150' } });
  let buyers: TestBuyerServer;
  beforeEach(async () => {
    buyers = await startBuyerServer();
  });
  afterEach(() => buyers.close());

  it('closes the held lead as not sold after settleAfter, gives its holds back, and offers it to no other buyer', async () => {
    const { apply, submit, db } = market();
    buyers.behave('/silent', { kind: 'hang' });
    buyers.behave('/next', { kind: 'accept' });
    const ids = await apply([
      buyer('silent', buyers.url('/silent'), '40.00', 1, { settleAfter: '2s' }),
      buyer('next', buyers.url('/next'), '30.00', 2),
    ]);
    const first = await submit(personLead());
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    const post = () =>
      db
        .selectFrom('lead_posts')
        .select(['state', 'resolved_by'])
        .where('lead_id', '=', leadId)
        .executeTakeFirstOrThrow();
    const lead = () => db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
    expect((await post()).state, 'held while settleAfter has not passed').to.equal('unknown');

    const until = Date.now() + 15_000;
    while ((await lead()).status === 'unconfirmed' && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const row = await lead();
    expect(row.status).to.equal('rejected');
    expect(Date.now() - Number(row.created_at), 'not before settleAfter').to.be.at.least(2000);
    expect(await post()).to.deep.equal({ state: 'rejected', resolved_by: 'settle_after' });
    const holds = await db
      .selectFrom('buyer_cap_counters')
      .select((eb) => eb.fn.sum<number>('leads').as('n'))
      .where('buyer_id', '=', ids.silent!)
      .where('period', 'like', 'd:%')
      .executeTakeFirst();
    expect(Number(holds?.n ?? 0), 'the cap place is given back').to.equal(0);
    expect(await market().count('sales', { column: 'lead_id', value: leadId })).to.equal(0);
    expect(buyers.received('/silent')).to.have.length(1);
    expect(buyers.received('/next'), 'never offered to another buyer').to.have.length(0);
    const metrics = await (await fetch(`http://127.0.0.1:${market().stack.service.metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^leadflow_unconfirmed_lead_oldest_age_seconds \d/m);
  });
});

/*
 * A lead whose first call ended without an outcome (DEADLINE_TOO_SHORT) and that no retry came back for:
 * closed as rejected once LEADFLOW_LEAD_RETRY_WINDOW_MS has passed since it arrived, so that it is not
 * "still being sold" forever; the publisher's status lookup, a late retry and its postback say why.
 */

const RETRY_WINDOW_MS = 2000;

describeEachDatabase('the reconciler: a lead no retry came back for is closed as rejected', (database) => {
  const market = useMarket(database, {
    env: { LEADFLOW_RECONCILE_INTERVAL_MS: '150', LEADFLOW_LEAD_RETRY_WINDOW_MS: String(RETRY_WINDOW_MS) },
  });
  let buyers: TestBuyerServer;
  beforeEach(async () => {
    buyers = await startBuyerServer();
  });
  afterEach(() => buyers.close());

  /** SubmitLead as a caller that gives it `deadlineMs`. */
  const submitBy = (body: Record<string, unknown>, deadlineMs: number): Promise<SubmitLeadResponse> => {
    const { stack, key } = market();
    return new Promise((resolve, reject) =>
      stack.client.submitLead(
        { webmasterKey: key, lead: Lead.fromPartial(body as Partial<Lead>), nonStringFields: [] },
        new Metadata(),
        { deadline: Date.now() + deadlineMs },
        (error, response) => (error ? reject(error) : resolve(response!)),
      ),
    );
  };
  const statusOf = (clickid: string) => {
    const { stack, key } = market();
    return call(stack.client.getLeadStatus.bind(stack.client), { webmasterKey: key, clickid });
  };

  it('closes it after the retry window, and the status lookup, a late retry and the postback say it was not retried', async () => {
    const { apply, db, stack, publisherId } = market();
    buyers.behave('/accept', { kind: 'accept' });
    await apply([buyer('accepting', buyers.url('/accept'), '40.00', 1)]);
    await call(
      stack.admin.setPublisherPostback.bind(stack.admin),
      { publisherId, url: 'http://127.0.0.1:9/postbacks', local: true },
      bearer(stack.service.adminToken),
    );
    const body = personLead();
    const clickid = body.clickid as string;

    const cutShort = await submitBy(body, 150).then(
      () => expect.fail('a 150 ms deadline sold the lead'),
      (error: ServiceError) => error,
    );
    expect(cutShort.code).to.be.oneOf([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);
    if (cutShort.code === status.UNAVAILABLE)
      expect(readRichStatus(cutShort.metadata)?.errorInfo?.reason).to.equal('DEADLINE_TOO_SHORT');
    const pending = (await statusOf(clickid)).outcome;
    expect(pending?.$case).to.equal('pending');
    expect(pending?.$case === 'pending' && pending.value.reason, 'nothing is selling it').to.match(/send it again/);

    const lead = () => db.selectFrom('leads').selectAll().where('clickid', '=', clickid).executeTakeFirstOrThrow();
    await waitUntil('the lead closed', async () => (await lead()).status !== 'processing', 15_000, 100);
    const row = await lead();
    expect(row.status).to.equal('rejected');
    expect(row.reason).to.match(/not retried/);
    expect(Number(row.completed_at) - Number(row.created_at), 'not before the window').to.be.at.least(RETRY_WINDOW_MS);

    const closed = await statusOf(clickid);
    expect(closed.outcome).to.deep.equal({ $case: 'rejected', value: { leadId: row.id, reason: row.reason } });
    const retry = await submitBy(body, 10_000);
    expect(retry.replayed).to.equal(true);
    expect(retry.outcome).to.deep.equal({ $case: 'rejected', value: { leadId: row.id, reason: row.reason } });
    expect(buyers.received('/accept'), 'no buyer got the lead').to.have.length(0);
    const events = await db.selectFrom('publisher_events').selectAll().where('lead_id', '=', row.id).execute();
    expect(events.map((event) => [event.type, JSON.parse(event.body).reason])).to.deep.equal([
      ['lead.rejected', row.reason],
    ]);
  });
});

/*
 * A failure is logged by its name and driver code, never by the error itself: a driver's message and its
 * `sql` quote the statement's values, which may be a lead's personal fields.
 */

const SSN = '078-05-1120';
const EMAIL = 'reconciled.person@example.com';

/** An error as mysql2 throws it on a duplicate key: the values in its message and, enumerable, in `sql`. */
function driverError(): Error {
  return Object.assign(new Error(`Duplicate entry '${SSN}' for key 'leads_ssn_hash'`), {
    code: 'ER_DUP_ENTRY',
    errno: 1062,
    sql: `insert into leads (ssn, email) values ('${SSN}', '${EMAIL}')`,
  });
}

const HELD: UnconfirmedLead = {
  leadId: 'lead_held',
  publisherId: 'pub_held',
  clickid: 'click-held',
  buyerId: 'buy_settles',
  postId: 'post_held',
  postedAt: 0,
  test: false,
};

describeEachDatabase(
  "the reconciler's failures: logged without the error, which may quote personal data",
  (database) => {
    let db: Db;
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('test', 'debug', { write: (line: string) => lines.push(JSON.parse(line)) });

    before(async () => {
      db = createDatabase(loadDistributionConfig(database().env));
      await migrateToLatest(db, testKeyRing());
    });
    after(() => db?.destroy());
    beforeEach(() => {
      lines.length = 0;
    });

    /** A reconciler over the real store, with one buyer that settles its held leads, and `resolution`'s answers. */
    function reconciler(resolution: Partial<LeadResolution>): Reconciler {
      const buyers = {
        list: async () => [{ id: HELD.buyerId, definition: { integration: { settleAfterMs: 1_000 } } }],
      } as unknown as BuyerService;
      return new Reconciler({
        db,
        buyers,
        resolution: {
          listUnconfirmed: async () => [],
          listHeldSince: async () => [],
          countUnconfirmed: async () => 0,
          oldestUnconfirmedPostAt: async () => undefined,
          ...resolution,
        } as LeadResolution,
        sellDeadlineMs: 10_000,
        retryWindowMs: 60_000,
        intervalMs: 20,
        logger,
        metrics: { unconfirmedLeads() {} },
      });
    }

    const logged = (message: string) => lines.filter((line) => line.msg === message);

    it('logs a failed pass with the error name and driver code only', async () => {
      const failing = reconciler({
        oldestUnconfirmedPostAt: async () => {
          throw driverError();
        },
      });
      failing.start();
      try {
        await waitUntil('a failed pass logged', () => logged('lead reconciliation failed').length > 0, 5_000, 10);
      } finally {
        await failing.stop();
      }
      expect(logged('lead reconciliation failed')[0]).to.deep.include({
        level: 40,
        error: { name: 'Error', code: 'ER_DUP_ENTRY' },
      });
      const text = JSON.stringify(lines);
      expect(text).not.to.include(SSN).and.not.to.include(EMAIL).and.not.to.include('Duplicate entry');
    });

    it("logs a lead it could not settle with the error's name and code, and as reason only its own words", async () => {
      let failure: Error = driverError();
      const settling = reconciler({
        listHeldSince: async () => [HELD],
        resolve: async () => {
          throw failure;
        },
      });
      await settling.sweep();
      failure = new StatusError('failed_precondition', 'the lead was settled meanwhile');
      await settling.sweep();

      const [driver, ours] = logged('could not resolve an unconfirmed lead');
      expect(driver).to.deep.include({ leadId: HELD.leadId, error: { name: 'Error', code: 'ER_DUP_ENTRY' } });
      expect(driver).not.to.have.property('reason');
      expect(ours).to.deep.include({
        leadId: HELD.leadId,
        error: { name: 'StatusError', code: 'failed_precondition' },
        reason: 'the lead was settled meanwhile',
      });
      const text = JSON.stringify(lines);
      expect(text).not.to.include(SSN).and.not.to.include(EMAIL).and.not.to.include('Duplicate entry');
    });
  },
  ['sqlite'],
);
