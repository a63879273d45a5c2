import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServiceError, status } from '@grpc/grpc-js';
import { LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { buyerFromStored } from '@leadflow/distribution/src/buyers/buyer';
import { findBuyer } from '@leadflow/distribution/src/buyers/buyer.repository';
import { GroupCommit } from '@leadflow/distribution/src/db/group-commit';
import { listLeadPosts } from '@leadflow/distribution/src/selling/lead-post.repository';
import { type OpenPost, PostJournal } from '@leadflow/distribution/src/selling/post-journal';
import { LeadStatus } from '@leadflow/proto/leadflow/admin/v1/leads';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { sql } from 'kysely';
import { bearer, call } from '../../../support/grpc.js';
import { expectBalancedLedger, personLead, soldOf, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/*
 * The sale protocol seen from the buyer: a real HTTP buyer that counts every post it receives and
 * what it accepted, scripted per test. "Never sold twice" is asserted there, not only in our tables.
 */

type Handler = (body: Record<string, unknown>, response: ServerResponse) => void | Promise<void>;

interface ScriptedBuyers {
  url(path: string): string;
  on(path: string, handler: Handler): void;
  /** Bodies received, by path. */
  received(path: string): Record<string, unknown>[];
  close(): Promise<void>;
}

async function startScriptedBuyers(): Promise<ScriptedBuyers> {
  const handlers = new Map<string, Handler>();
  const received = new Map<string, Record<string, unknown>[]>();
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const path = request.url ?? '/';
    received.set(path, [...(received.get(path) ?? []), body]);
    open.add(response);
    response.on('close', () => open.delete(response));
    const handler = handlers.get(path);
    if (!handler) return answer(response, 404, { accepted: false });
    await handler(body, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    on: (path, handler) => handlers.set(path, handler),
    received: (path) => received.get(path) ?? [],
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function answer(response: ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

const accept: Handler = (_, response) =>
  answer(response, 200, { accepted: true, redirectUrl: 'https://lender.example/go' });
/** Never answers: the post times out at the buyer's timeoutMs. */
const hang: Handler = () => undefined;

const EVERY_FIELD = {
  leadId: 'leadId',
  attemptId: 'attemptId',
  ...Object.fromEntries(LEAD_FIELDS.map((field) => [field, field])),
};
const REPLY = { format: 'json', accepted: { path: '$.accepted', equals: 'true' }, redirectUrl: '$.redirectUrl' };

function buyer(
  name: string,
  url: string,
  settings: {
    price: string;
    tier?: number;
    timeoutMs?: number;
    onTimeout?: string;
    statusLookup?: string;
    caps?: unknown;
  },
) {
  return {
    name,
    tier: settings.tier ?? 1,
    pricing: { type: 'fixed', price: settings.price },
    ...(settings.caps ? { caps: settings.caps } : {}),
    integration: {
      mode: 'direct_post',
      local: true,
      timeoutMs: settings.timeoutMs ?? 1000,
      ...(settings.onTimeout ? { onTimeout: settings.onTimeout } : {}),
      ...(settings.statusLookup
        ? {
            statusLookup: {
              url: settings.statusLookup,
              mapping: { leadId: 'leadId', attemptId: 'attemptId' },
              response: { format: 'json', accepted: { path: '$.held', equals: 'yes' } },
            },
          }
        : {}),
      post: { url, mapping: EVERY_FIELD, response: REPLY },
    },
  };
}

function grpcCode(error: unknown): number | undefined {
  return (error as ServiceError).code;
}

describeEachDatabase('the sale protocol: what a buyer may hold is never offered to another', (database) => {
  const market = useMarket(database, {
    env: { LEADFLOW_SELL_DEADLINE_MS: '3000', LEADFLOW_RECONCILE_INTERVAL_MS: '150' },
  });
  let buyers: ScriptedBuyers;
  beforeEach(async () => {
    buyers = await startScriptedBuyers();
  });
  afterEach(() => buyers.close());

  const admin = () => {
    const { stack } = market();
    const auth = () => bearer(stack.service.adminToken);
    return {
      unconfirmed: async () =>
        (await call(stack.admin.listUnconfirmedLeads.bind(stack.admin), { pageSize: 0, pageToken: '' }, auth())).leads,
      resolve: (leadId: string, sold: boolean, chargeCents = 0) =>
        call(stack.admin.resolveLead.bind(stack.admin), { leadId, sold, chargeCents }, auth()),
    };
  };

  const leadRow = (leadId: string) =>
    market().db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
  const capCount = async (buyerId: string) =>
    Number(
      (
        await market()
          .db.selectFrom('buyer_cap_counters')
          .select((eb) => eb.fn.sum<number>('leads').as('n'))
          .where('buyer_id', '=', buyerId)
          .where('period', 'like', 'd:%')
          .executeTakeFirst()
      )?.n ?? 0,
    );

  it('holds a lead whose post timed out for that buyer: no other buyer gets it, a retry replays it, and an operator settles it as sold', async () => {
    const { apply, submit } = market();
    buyers.on('/slow', hang);
    buyers.on('/next', accept);
    const ids = await apply([
      buyer('slow', buyers.url('/slow'), { price: '40.00', timeoutMs: 300, caps: { leadsPerDay: 100 } }),
      buyer('next', buyers.url('/next'), { price: '30.00' }),
    ]);
    const body = personLead();
    const first = await submit(body);
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    expect(buyers.received('/next'), 'the next buyer never got the lead').to.have.length(0);

    const retried = await submit(body);
    expect(retried.outcome).to.deep.equal(first.outcome);
    expect(retried.replayed).to.equal(true);
    expect(buyers.received('/slow')).to.have.length(1);
    expect(buyers.received('/next')).to.have.length(0);

    const listed = await admin().unconfirmed();
    expect(listed.map((lead) => [lead.leadId, lead.buyerId, lead.postId])).to.deep.include([
      leadId,
      ids.slow,
      buyers.received('/slow')[0]!.attemptId,
    ]);
    expect(await capCount(ids.slow!), 'the post keeps its place under the cap while unconfirmed').to.equal(1);

    const resolved = await admin().resolve(leadId, true);
    expect(resolved).to.deep.equal({
      leadId,
      status: LeadStatus.LEAD_STATUS_SOLD,
      buyerId: ids.slow,
      payoutCents: 3200,
    });
    expect((await admin().unconfirmed()).map((lead) => lead.leadId)).not.to.include(leadId);
    const sales = await expectBalancedLedger(market().db, [leadId]);
    expect(sales.map((sale) => [sale.buyer_id, sale.charge_cents])).to.deep.equal([[ids.slow, 4000]]);
    expect(await capCount(ids.slow!)).to.equal(1);
    const replay = soldOf(await submit(body));
    expect(replay).to.include({ leadId, buyerId: ids.slow, payoutCents: 3200 });
    await admin()
      .resolve(leadId, false)
      .then(
        () => expect.fail('a settled lead cannot be resolved again'),
        (error) => expect(grpcCode(error)).to.equal(status.FAILED_PRECONDITION),
      );
  });

  it('treats a connection cut mid-post like a timeout, and settling it as not sold gives the cap back and rejects the lead', async () => {
    const { apply, submit } = market();
    buyers.on('/cut', (_, response) => {
      response.socket?.destroy();
    });
    buyers.on('/next', accept);
    const ids = await apply([
      buyer('cut', buyers.url('/cut'), { price: '40.00', caps: { leadsPerDay: 100 } }),
      buyer('next', buyers.url('/next'), { price: '30.00' }),
    ]);
    const first = await submit(personLead());
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    expect(buyers.received('/next')).to.have.length(0);
    expect(await capCount(ids.cut!)).to.equal(1);

    expect(await admin().resolve(leadId, false)).to.deep.include({ leadId, status: LeadStatus.LEAD_STATUS_REJECTED });
    expect(await capCount(ids.cut!), 'the cap place is given back').to.equal(0);
    expect((await leadRow(leadId)).status).to.equal('rejected');
    expect(await market().count('sales', { column: 'lead_id', value: leadId })).to.equal(0);
    expect(await market().count('ledger_entries', { column: 'lead_id', value: leadId })).to.equal(0);
  });

  /**
   * The seller of a lead that stood still past its claim (a paused process) while recovery made the lead
   * unconfirmed: its post, as the seller holds it, to store the answer the buyer gave meanwhile.
   */
  async function pausedSeller(leadId: string, buyerId: string, heldSpend: number) {
    const { db } = market();
    const [post] = await listLeadPosts(db, leadId);
    const counters = await db
      .selectFrom('buyer_cap_counters')
      .select('period')
      .where('buyer_id', '=', buyerId)
      .execute();
    const open: OpenPost = {
      id: post!.id,
      lead: { leadId, claimToken: 'taken over by recovery', person: { ssn: '', email: '', phone: '' }, live: true },
      offer: {
        buyer: buyerFromStored((await findBuyer(db, buyerId))!),
        periods: counters.map(({ period }) => ({ period, maxLeads: undefined, maxSpendCents: undefined })),
        chargeCents: undefined,
        payoutCents: undefined,
      },
      heldSpend,
    };
    return { journal: new PostJournal(db, new GroupCommit(db)), post: open, answerBy: Date.now() + 2000 };
  }

  const spendOf = async (buyerId: string) =>
    market()
      .db.selectFrom('buyer_cap_counters')
      .select(['leads', 'spend_cents'])
      .where('buyer_id', '=', buyerId)
      .execute();

  it("keeps an operator's sale as settled when the paused seller's acceptance arrives after it, at another price", async () => {
    const { apply, submit } = market();
    buyers.on('/names-price', hang);
    const base = buyer('names-price', buyers.url('/names-price'), { price: '1.00', timeoutMs: 300 });
    const ids = await apply([
      {
        ...base,
        pricing: { type: 'bid' },
        caps: { spendPerDay: '500.00' },
        integration: {
          ...base.integration,
          post: { ...base.integration.post, response: { ...REPLY, price: '$.price' } },
        },
      },
    ]);
    const buyerId = ids['names-price']!;
    const first = await submit(personLead());
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    const hold = await market()
      .db.selectFrom('buyer_cap_holds')
      .select('spend_cents')
      .where('lead_id', '=', leadId)
      .executeTakeFirstOrThrow();
    expect(hold.spend_cents, 'a post of a buyer naming its price holds what is left of its spend cap').to.equal(50_000);
    const seller = await pausedSeller(leadId, buyerId, hold.spend_cents);

    await admin().resolve(leadId, true, 4000);
    expect(await spendOf(buyerId)).to.deep.equal([{ leads: 1, spend_cents: 4000 }]);

    const late = { state: 'accepted', chargeCents: 5500, payoutCents: 4400, redirectUrl: '' } as const;
    await seller.journal.accepted(seller.post, late, seller.answerBy).storeAlone();
    expect(await spendOf(buyerId), 'the sale counts at the price it was settled at').to.deep.equal([
      { leads: 1, spend_cents: 4000 },
    ]);
    const [post] = await listLeadPosts(market().db, leadId);
    expect(post).to.include({ state: 'accepted', chargeCents: 4000, resolvedBy: 'operator' });
  });

  it("leaves a lead resolvable when the paused seller's decline arrives after recovery made it unconfirmed", async () => {
    const { apply, submit } = market();
    buyers.on('/slow', hang);
    const ids = await apply([
      buyer('slow-paused', buyers.url('/slow'), { price: '40.00', timeoutMs: 300, caps: { leadsPerDay: 100 } }),
    ]);
    const buyerId = ids['slow-paused']!;
    const first = await submit(personLead());
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    const seller = await pausedSeller(leadId, buyerId, 4000);

    await seller.journal.answer(seller.post, { state: 'rejected' }, seller.answerBy);
    expect((await listLeadPosts(market().db, leadId))[0]!.state, 'the post still awaits a verdict').to.equal('unknown');
    expect((await admin().unconfirmed()).map((lead) => lead.leadId)).to.include(leadId);
    expect(await capCount(buyerId), 'the post keeps its cap place until it is settled').to.equal(1);
    expect(await admin().resolve(leadId, false)).to.deep.include({ leadId, status: LeadStatus.LEAD_STATUS_REJECTED });
    expect(await capCount(buyerId)).to.equal(0);
  });

  it('moves on to the next buyer after a timeout only when the buyer counts a timeout as a decline', async () => {
    const { apply, submit } = market();
    buyers.on('/slow', hang);
    buyers.on('/next', accept);
    const ids = await apply([
      buyer('slow-declines', buyers.url('/slow'), {
        price: '40.00',
        timeoutMs: 300,
        onTimeout: 'decline',
        caps: { leadsPerDay: 100 },
      }),
      buyer('next', buyers.url('/next'), { price: '30.00' }),
    ]);
    const sold = soldOf(await submit(personLead()));
    expect(sold.buyerId).to.equal(ids.next);
    expect(await capCount(ids['slow-declines']!), "the declined post's cap place is given back").to.equal(0);
    const posts = await market()
      .db.selectFrom('lead_posts')
      .select(['buyer_id', 'state', 'resolved_by'])
      .where('lead_id', '=', sold.leadId)
      .orderBy('created_at')
      .execute();
    expect(posts).to.deep.equal([
      { buyer_id: ids['slow-declines'], state: 'failed', resolved_by: 'timeout_policy' },
      { buyer_id: ids.next, state: 'accepted', resolved_by: null },
    ]);
  });

  it("sends the post's attempt id, the key of its intent, and settles an unanswered post through the buyer's status lookup", async () => {
    const { apply, submit } = market();
    const held = new Set<string>();
    buyers.on('/takes-it', (body) => {
      // The buyer takes the lead, but its answer never comes back in time.
      held.add(String(body.attemptId));
    });
    buyers.on('/status', (body, response) =>
      answer(response, 200, { held: held.has(String(body.attemptId)) ? 'yes' : 'no' }),
    );
    buyers.on('/next', accept);
    const ids = await apply([
      buyer('takes-it', buyers.url('/takes-it'), {
        price: '40.00',
        timeoutMs: 300,
        statusLookup: buyers.url('/status'),
      }),
      buyer('next', buyers.url('/next'), { price: '30.00' }),
    ]);
    const first = await submit(personLead());
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    const [post] = buyers.received('/takes-it');
    const intent = await market()
      .db.selectFrom('lead_posts')
      .selectAll()
      .where('lead_id', '=', leadId)
      .executeTakeFirstOrThrow();
    expect(post!.attemptId).to.equal(intent.id);

    const deadline = Date.now() + 10_000;
    while ((await leadRow(leadId)).status === 'unconfirmed' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const row = await leadRow(leadId);
    expect(row.status, 'settled by the status lookup').to.equal('sold');
    expect(row.buyer_id).to.equal(ids['takes-it']);
    const lookups = buyers.received('/status');
    expect(lookups.length).to.be.at.least(1);
    // A lookup carries ids only, never a lead field.
    expect(Object.keys(lookups[0]!).sort()).to.deep.equal(['attemptId', 'leadId']);
    const settled = await market()
      .db.selectFrom('lead_posts')
      .select(['state', 'resolved_by'])
      .where('id', '=', intent.id)
      .executeTakeFirstOrThrow();
    expect(settled).to.deep.equal({ state: 'accepted', resolved_by: 'status_lookup' });
    await expectBalancedLedger(market().db, [leadId]);
    expect(buyers.received('/next')).to.have.length(0);
  });

  it('completes a sale whose record failed after the buyer accepted from its intent, without posting again', async () => {
    const { apply, submit, db, stack } = market();
    const rename = (from: string, to: string) =>
      stack.service.db.getExecutor().adapter.constructor.name === 'MysqlAdapter'
        ? sql`RENAME TABLE ${sql.table(from)} TO ${sql.table(to)}`.execute(db)
        : sql`ALTER TABLE ${sql.table(from)} RENAME TO ${sql.table(to)}`.execute(db);
    buyers.on('/first', async (_, response) => {
      // The buyer accepts; by then the sale can no longer be written (a full disk, a lost table).
      await rename('sales', 'sales_unavailable');
      await accept({}, response);
    });
    buyers.on('/second', accept);
    const ids = await apply([
      buyer('first', buyers.url('/first'), { price: '40.00' }),
      buyer('second', buyers.url('/second'), { price: '30.00' }),
    ]);
    const body = personLead();
    let failed: unknown;
    try {
      await submit(body);
    } catch (error) {
      failed = error;
    } finally {
      await rename('sales_unavailable', 'sales');
    }
    expect(grpcCode(failed), 'a retryable answer, not INTERNAL').to.equal(status.UNAVAILABLE);

    const sold = soldOf(await submit(body));
    expect(sold.buyerId).to.equal(ids.first);
    expect(buyers.received('/first'), 'posted once').to.have.length(1);
    expect(buyers.received('/second')).to.have.length(0);
    await expectBalancedLedger(db, [sold.leadId]);
  });

  it('consumes nothing when the caller gives too little time: a retry with a whole budget sells the lead', async () => {
    const { apply, stack, key } = market();
    buyers.on('/buyer', accept);
    const ids = await apply([buyer('only', buyers.url('/buyer'), { price: '40.00' })]);
    const body = personLead();
    const lead = Lead.fromPartial(
      Object.fromEntries(Object.entries(body).filter(([, value]) => typeof value === 'string')) as Partial<Lead>,
    );
    const short = await call(
      stack.client.submitLead.bind(stack.client),
      { webmasterKey: key, lead, nonStringFields: [] },
      undefined,
      { deadline: Date.now() + 100 },
    ).then(
      (response) => ({ response }),
      (error: unknown) => ({ code: grpcCode(error) }),
    );
    expect(short, 'no final answer').to.satisfy(
      (result: { code?: number }) => result.code === status.UNAVAILABLE || result.code === status.DEADLINE_EXCEEDED,
    );
    expect(buyers.received('/buyer')).to.have.length(0);

    const sold = soldOf(
      await call(stack.client.submitLead.bind(stack.client), { webmasterKey: key, lead, nonStringFields: [] }),
    );
    expect(sold.buyerId).to.equal(ids.only);
    expect(buyers.received('/buyer')).to.have.length(1);
  });
});
