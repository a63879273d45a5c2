import { createHash } from 'node:crypto';
import { type ServiceError, status } from '@grpc/grpc-js';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { validLeadBody } from '../../../support/leads.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('distribution service: intake over gRPC', (database) => {
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let key: string;

  before(async () => {
    stack = await startTestDistribution(database());
    buyers = await startBuyerServer();
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });
  beforeEach(async () => {
    // Every test sets up its own market: pause whatever earlier tests created.
    const { buyers: existing } = await call(
      stack.admin.listBuyers.bind(stack.admin),
      { pageSize: 0, pageToken: '' },
      bearer(stack.service.adminToken),
    );
    for (const buyer of existing) {
      await call(
        stack.admin.setBuyerActive.bind(stack.admin),
        { buyer: buyer.id, active: false },
        bearer(stack.service.adminToken),
      );
    }
    ({ key } = await stack.createPublisher());
  });
  /** Applies one buyer that accepts every lead at this path of the buyer server. */
  const accepting = async (name: string, settings: Parameters<typeof testBuyer>[2] = {}) => {
    buyers.behave(`/${name}`, { kind: 'accept', redirectUrl: 'https://lender.example/apply' });
    return (await stack.applyBuyers([testBuyer(name, buyers.url(`/${name}`), settings)]))[name]!;
  };

  const db = () => stack.service.db;
  const leadCount = async () =>
    Number(
      (
        await db()
          .selectFrom('leads')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const saleCount = async (leadId: string) =>
    Number(
      (
        await db()
          .selectFrom('sales')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('lead_id', '=', leadId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('sells to a fixed-price buyer and pays the publisher its share', async () => {
    const buyerId = await accepting('fixed', { pricing: { type: 'fixed', price: '25.00' } });
    const answer = await stack.submit(key, validLeadBody());
    expect(answer.outcome?.$case).to.equal('sold');
    const sold = answer.outcome!.$case === 'sold' ? answer.outcome!.value : undefined;
    expect(sold).to.include({ payoutCents: 2000, buyerId, redirectUrl: 'https://lender.example/apply' });
    expect(sold!.leadId).to.match(/^lead_/);
    const sale = await db()
      .selectFrom('sales')
      .selectAll()
      .where('lead_id', '=', sold!.leadId)
      .executeTakeFirstOrThrow();
    expect(sale).to.include({ charge_cents: 2500, payout_cents: 2000, margin_cents: 500, buyer_id: buyerId });
    const ledger = await db()
      .selectFrom('ledger_entries')
      .select(['entry_type', 'amount_cents'])
      .where('lead_id', '=', sold!.leadId)
      .orderBy('entry_type')
      .execute();
    expect(ledger).to.deep.equal([
      { entry_type: 'buyer_charge', amount_cents: -2500 },
      { entry_type: 'platform_margin', amount_cents: 500 },
      { entry_type: 'publisher_payout', amount_cents: 2000 },
    ]);
  });

  it('offers the lead only to buyers whose payout meets the price floor', async () => {
    const cheap = await accepting('cheap', { pricing: { type: 'fixed', price: '10.00' } });
    const answer = await stack.submit(key, validLeadBody({ price: '9.00' }));
    expect(answer.outcome).to.deep.include({ $case: 'rejected' });
    if (answer.outcome?.$case !== 'rejected') return;
    const skipped = await db()
      .selectFrom('buyer_attempts')
      .select(['kind', 'reason'])
      .where('lead_id', '=', answer.outcome.value.leadId)
      .where('buyer_id', '=', cheap)
      .execute();
    expect(skipped).to.deep.equal([{ kind: 'skip', reason: 'floor' }]);
    const cheaper = await stack.submit(key, validLeadBody({ price: '8.00' }));
    expect(cheaper.outcome?.$case).to.equal('sold');
    expect(cheaper.outcome?.$case === 'sold' && cheaper.outcome.value.payoutCents).to.equal(800);
  });

  it('tries buyers in priority order and records every attempt', async () => {
    buyers.behave('/first', { kind: 'reject', reason: 'duplicate in our system' });
    buyers.behave('/second', { kind: 'accept', redirectUrl: 'https://second.example/r/1' });
    buyers.behave('/third', { kind: 'accept' });
    const ids = await stack.applyBuyers([
      testBuyer('first', buyers.url('/first'), { priority: 1 }),
      testBuyer('second', buyers.url('/second'), { priority: 2, pricing: { type: 'fixed', price: '15.00' } }),
      testBuyer('third', buyers.url('/third'), { priority: 3, pricing: { type: 'fixed', price: '10.00' } }),
    ]);
    const answer = await stack.submit(key, validLeadBody());
    expect(answer.outcome?.$case).to.equal('sold');
    if (answer.outcome?.$case !== 'sold') return;
    expect(answer.outcome.value).to.include({
      buyerId: ids.second,
      payoutCents: 1200,
      redirectUrl: 'https://second.example/r/1',
    });
    expect(buyers.received('/third')).to.have.length(0);
    const attempts = await db()
      .selectFrom('buyer_attempts')
      .selectAll()
      .where('lead_id', '=', answer.outcome.value.leadId)
      .where('kind', '=', 'post')
      .orderBy('started_at')
      .orderBy('id')
      .execute();
    expect(attempts.map((attempt) => [attempt.buyer_id, attempt.outcome])).to.deep.equal([
      [ids.first, 'rejected'],
      [ids.second, 'accepted'],
    ]);
    const posted = buyers.received('/second').at(-1)!.body;
    expect(posted).to.include({ ssn: '123456789', state: 'CA', leadId: answer.outcome.value.leadId });
  });

  it('skips buyers whose state or loan amount filters do not match', async () => {
    await accepting('texas-only', { filters: { field: 'state', in: ['TX'] } });
    await accepting('big-loans', { filters: { field: 'loanAmount', range: { min: 5000 } } });
    const answer = await stack.submit(key, validLeadBody({ state: 'CA', loanAmount: '1500' }));
    expect(answer.outcome?.$case).to.equal('rejected');
    const texan = await stack.submit(key, validLeadBody({ state: 'TX', zip: '73301' }));
    expect(texan.outcome?.$case).to.equal('sold');
  });

  it('never sells on a buyer error, an unparseable reply or a timeout', async () => {
    buyers.behave('/down', { kind: 'status', status: 503 });
    buyers.behave('/html', { kind: 'garbage' });
    buyers.behave('/slow', { kind: 'hang' });
    await stack.applyBuyers([
      testBuyer('down', buyers.url('/down'), { priority: 1 }),
      testBuyer('html', buyers.url('/html'), { priority: 2 }),
      testBuyer('slow', buyers.url('/slow'), { priority: 3, integration: { timeoutMs: 300 } }),
    ]);
    const answer = await stack.submit(key, validLeadBody());
    // The last post got no answer: the buyer may hold the lead, so it waits for that buyer's word.
    expect(answer.outcome?.$case).to.equal('unconfirmed');
    if (answer.outcome?.$case !== 'unconfirmed') return;
    const outcomes = await db()
      .selectFrom('buyer_attempts')
      .select(['outcome', 'http_status'])
      .where('lead_id', '=', answer.outcome.value.leadId)
      .where('kind', '=', 'post')
      .orderBy('started_at')
      .orderBy('id')
      .execute();
    // A post that got no answer in time may have reached the buyer: its outcome is unknown, never a sale.
    expect(outcomes.map((attempt) => attempt.outcome)).to.deep.equal(['error', 'error', 'unknown']);
    expect(await saleCount(answer.outcome.value.leadId)).to.equal(0);
  });

  it('refuses invalid leads with every error at once and stores nothing', async () => {
    const before = await leadCount();
    const refused = await stack
      .submit(key, validLeadBody({ ssn: '000-12-3456', email: 'nope', loanAmount: 1500 }))
      .catch((error: ServiceError) => error);
    expect((refused as ServiceError).code).to.equal(status.INVALID_ARGUMENT);
    const violations = readRichStatus((refused as ServiceError).metadata)?.badRequest?.fieldViolations ?? [];
    expect(violations.map((violation) => violation.field)).to.have.members([
      'lead.ssn',
      'lead.email',
      'lead.loan_amount',
    ]);
    expect(await leadCount()).to.equal(before);
  });

  it('refuses unknown and revoked keys with UNAUTHENTICATED', async () => {
    const unknown = await stack.submit(`lfpk_${'x'.repeat(43)}`, validLeadBody()).catch((error: ServiceError) => error);
    expect((unknown as ServiceError).code).to.equal(status.UNAUTHENTICATED);
    const publishers = await call(
      stack.admin.listPublishers.bind(stack.admin),
      { pageSize: 0, pageToken: '' },
      bearer(stack.service.adminToken),
    );
    const mine = publishers.publishers.find((publisher) => publisher.keys.some((k) => k.hint === key.slice(-4)))!;
    await call(
      stack.admin.revokePublisherKey.bind(stack.admin),
      { keyId: mine.keys[0]!.id },
      bearer(stack.service.adminToken),
    );
    const revoked = await stack.submit(key, validLeadBody()).catch((error: ServiceError) => error);
    expect((revoked as ServiceError).code).to.equal(status.UNAUTHENTICATED);
  });

  it('accepts both keys of a publisher during rotation', async () => {
    await accepting('fixed');
    const publishers = await call(
      stack.admin.listPublishers.bind(stack.admin),
      { pageSize: 0, pageToken: '' },
      bearer(stack.service.adminToken),
    );
    const mine = publishers.publishers.find((publisher) => publisher.keys.some((k) => k.hint === key.slice(-4)))!;
    const rotated = await call(
      stack.admin.rotatePublisherKey.bind(stack.admin),
      { publisherId: mine.id },
      bearer(stack.service.adminToken),
    );
    expect((await stack.submit(key, validLeadBody())).outcome?.$case).to.equal('sold');
    expect((await stack.submit(rotated.key, validLeadBody())).outcome?.$case).to.equal('sold');
    const third = await call(
      stack.admin.rotatePublisherKey.bind(stack.admin),
      { publisherId: mine.id },
      bearer(stack.service.adminToken),
    ).catch((error: ServiceError) => error);
    expect((third as ServiceError).code).to.equal(status.FAILED_PRECONDITION);
  });

  it('replays the stored answer for a retry with the same clickid and body', async () => {
    await accepting('once');
    const body = validLeadBody();
    const calls = buyers.received('/once').length;
    const first = await stack.submit(key, body);
    const retry = await stack.submit(key, { ...body, unknownField: 'ignored' });
    expect(retry.replayed).to.equal(true);
    expect(retry.outcome).to.deep.equal(first.outcome);
    expect(buyers.received('/once').length - calls).to.equal(1);
  });

  it('refuses the same clickid with a different body with ALREADY_EXISTS', async () => {
    await accepting('fixed');
    const body = validLeadBody();
    await stack.submit(key, body);
    const reused = await stack.submit(key, { ...body, firstName: 'Someone' }).catch((error: ServiceError) => error);
    expect((reused as ServiceError).code).to.equal(status.ALREADY_EXISTS);
    expect(readRichStatus((reused as ServiceError).metadata)?.errorInfo?.reason).to.equal('CLICKID_REUSED');
  });

  it('gives 20 concurrent identical posts one lead, one sale and one buyer call', async () => {
    buyers.behave('/slowish', { kind: 'accept', delayMs: 150 });
    await stack.applyBuyers([testBuyer('slowish', buyers.url('/slowish'))]);
    const body = validLeadBody();
    const calls = buyers.received('/slowish').length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => stack.submit(key, body)));
    const leadIds = new Set(answers.map((answer) => answer.outcome?.$case === 'sold' && answer.outcome.value.leadId));
    expect(leadIds.size).to.equal(1);
    expect([...leadIds][0]).to.be.a('string');
    expect(answers.filter((answer) => !answer.replayed)).to.have.length(1);
    expect(buyers.received('/slowish').length - calls).to.equal(1);
    expect(await saleCount([...leadIds][0] as string)).to.equal(1);
    const rows = await db()
      .selectFrom('leads')
      .select('id')
      .where('clickid', '=', body.clickid as string)
      .execute();
    expect(rows).to.have.length(1);
  });

  it('sends test leads only to test endpoints and writes no sale', async () => {
    buyers.behave('/live', { kind: 'accept' });
    buyers.behave('/test', { kind: 'accept' });
    await stack.applyBuyers([
      testBuyer('with-test-endpoint', buyers.url('/live'), {
        integration: { testBehaviour: 'test_url' },
        post: { testUrl: buyers.url('/test') },
      }),
    ]);
    const live = buyers.received('/live').length;
    const answer = await stack.submit(key, validLeadBody({ testMode: '1' }));
    expect(answer.outcome?.$case).to.equal('sold');
    if (answer.outcome?.$case !== 'sold') return;
    expect(buyers.received('/live').length).to.equal(live);
    expect(buyers.received('/test').at(-1)!.body).to.include({ testMode: true });
    const row = await db()
      .selectFrom('leads')
      .select(['is_test', 'status'])
      .where('id', '=', answer.outcome.value.leadId)
      .executeTakeFirstOrThrow();
    expect(row).to.deep.equal({ is_test: 1, status: 'sold' });
    expect(await saleCount(answer.outcome.value.leadId)).to.equal(0);
  });

  it('validates test leads by the same rules', async () => {
    const refused = await stack
      .submit(key, validLeadBody({ testMode: '1', ssn: '' }))
      .catch((error: ServiceError) => error);
    expect((refused as ServiceError).code).to.equal(status.INVALID_ARGUMENT);
    const violations = readRichStatus((refused as ServiceError).metadata)?.badRequest?.fieldViolations ?? [];
    expect(violations.map(({ field, description }) => ({ field, description }))).to.deep.equal([
      { field: 'lead.ssn', description: 'is required' },
    ]);
  });

  it('stores personal fields encrypted and keyed-hashed, and shows them masked', async () => {
    await accepting('fixed');
    const answer = await stack.submit(key, validLeadBody({ ssn: '219-09-9999', bankAccountNumber: '9876543210' }));
    if (answer.outcome?.$case !== 'sold') throw new Error('expected a sale');
    const leadId = answer.outcome.value.leadId;
    const row = await db().selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expect(stored).not.to.include('219099999');
    expect(stored).not.to.include('9876543210');
    for (const value of [
      '1986-04-12',
      'Maria',
      'Garcia',
      'maria.garcia@example.com',
      '1200 Market St',
      '4155550123',
      '4155550188',
      '203.0.113.7',
    ]) {
      expect(stored).not.to.include(value);
    }
    expect(row.ssn_hash).not.to.equal(createHash('sha256').update('219099999').digest('hex'));
    expect(row.sensitive).to.match(/^v1\.k1\./);

    const view = await call(stack.admin.getLead.bind(stack.admin), { leadId }, bearer(stack.service.adminToken));
    expect(view.lead!.fields).to.include({
      ssn: '*****9999',
      bankAccountNumber: '******3210',
      dob: '**********',
      firstName: 'M****',
      lastName: 'G*****',
      email: 'm***********@example.com',
      address: '**************',
      homePhone: '******0123',
      cellPhone: '******0188',
      userIp: '***********',
      city: 'San Francisco',
      state: 'CA',
      zip: '94102',
    });
    expect(view.lead!.tracking).to.deep.equal({ affiliate: 'aff42', sub: 'spring', transaction: 'tx-9001' });
    expect(view.lead!.attempts).to.have.length(1);
    const anonymous = await call(stack.admin.getLead.bind(stack.admin), { leadId }).catch(
      (error: ServiceError) => error,
    );
    expect((anonymous as ServiceError).code).to.equal(status.UNAUTHENTICATED);
  });

  it('finishes a lead whose first owner died mid-sale when the publisher retries', async () => {
    await accepting('fixed');
    const body = validLeadBody();
    const first = await stack.submit(key, body);
    if (first.outcome?.$case !== 'sold') throw new Error('expected a sale');
    const leadId = first.outcome.value.leadId;
    // Rewind the lead to what a process that crashed after storing it leaves behind.
    await db().deleteFrom('ledger_entries').where('lead_id', '=', leadId).execute();
    await db().deleteFrom('sales').where('lead_id', '=', leadId).execute();
    await db().deleteFrom('buyer_attempts').where('lead_id', '=', leadId).execute();
    await db()
      .updateTable('leads')
      .set({
        status: 'processing',
        claimed_at: Date.now() - 60 * 60 * 1000,
        buyer_id: null,
        payout_cents: null,
        completed_at: null,
      })
      .where('id', '=', leadId)
      .execute();
    const retry = await stack.submit(key, body);
    expect(retry.outcome?.$case).to.equal('sold');
    expect(retry.outcome?.$case === 'sold' && retry.outcome.value.leadId).to.equal(leadId);
    expect(await saleCount(leadId)).to.equal(1);
  });
});
