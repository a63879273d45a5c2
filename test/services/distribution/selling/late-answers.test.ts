import { expect } from 'chai';
import { type BuyerBehaviour, startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { bearer, call } from '../../../support/grpc.js';
import { expectBalancedLedger, personLead, soldOf, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/*
 * A post still unanswered at the sale's deadline: the publisher hears `unconfirmed` at the deadline,
 * the post's connection stays open until the buyer's own timeout, and the buyer's answer then settles
 * the held lead. The buyer is a real HTTP server that answers when the test says, after the publisher
 * has its answer; what it received is the proof of what was sold to whom.
 */

/** The sale's deadline, and a post timeout long enough to be posted within it and to outlive it. */
const SELL_DEADLINE_MS = 4000;
const POST_TIMEOUT_MS = 6000;
const REPLY = { format: 'json', accepted: { path: '$.accepted', equals: 'true' }, redirectUrl: '$.redirectUrl' };

function buyer(name: string, url: string, price: string, tier: number, timeoutMs = 1000) {
  return {
    name,
    tier,
    pricing: { type: 'fixed', price },
    caps: { leadsPerDay: 100 },
    integration: {
      mode: 'direct_post',
      local: true,
      timeoutMs,
      post: { url, mapping: { leadId: 'leadId', email: 'email' }, response: REPLY },
    },
  };
}

/** A buyer answer the test gives when it chooses. */
function later(): { behaviour: BuyerBehaviour; answer(behaviour: BuyerBehaviour): void } {
  let answer: (behaviour: BuyerBehaviour) => void = () => undefined;
  const promise = new Promise<BuyerBehaviour>((resolve) => (answer = resolve));
  return { behaviour: { kind: 'later', answer: promise }, answer };
}

describeEachDatabase("late answers: a buyer's answer after the sale's deadline settles the held lead", (database) => {
  const market = useMarket(database, {
    env: { LEADFLOW_SELL_DEADLINE_MS: String(SELL_DEADLINE_MS), LEADFLOW_RECONCILE_INTERVAL_MS: '60000' },
  });
  let buyers: TestBuyerServer;
  let tests = 0;
  beforeEach(async () => {
    buyers = await startBuyerServer();
  });
  afterEach(() => buyers.close());

  const leadRow = (leadId: string) =>
    market().db.selectFrom('leads').selectAll().where('id', '=', leadId).executeTakeFirstOrThrow();
  const postOf = (leadId: string) =>
    market()
      .db.selectFrom('lead_posts')
      .select(['buyer_id', 'state', 'resolved_by'])
      .where('lead_id', '=', leadId)
      .executeTakeFirstOrThrow();
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
  /** Waits (bounded by more than the post's timeout) for the held lead to settle. */
  const settled = async (leadId: string) => {
    const until = Date.now() + POST_TIMEOUT_MS + 5000;
    while ((await leadRow(leadId)).status === 'unconfirmed' && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return leadRow(leadId);
  };
  const metrics = async () => (await fetch(`http://127.0.0.1:${market().stack.service.metricsPort}/metrics`)).text();

  /** Submits a lead the `late` buyer answers only when told; the `next` buyer accepts at once. */
  const heldLead = async () => {
    const { apply, submit } = market();
    const pending = later();
    buyers.behave('/late', pending.behaviour);
    buyers.behave('/next', { kind: 'accept', redirectUrl: 'https://next.example/go' });
    // A new buyer each test: the figures learned from an earlier test's late post would keep it from
    // being posted within the deadline at all.
    const name = `late-${++tests}`;
    const applied = await apply([
      buyer(name, buyers.url('/late'), '40.00', 1, POST_TIMEOUT_MS),
      // A tier below: offered the lead only if the first tier sells nothing.
      buyer('next', buyers.url('/next'), '30.00', 2),
    ]);
    const ids = { late: applied[name]!, next: applied.next! };
    const body = personLead();
    const first = await submit(body);
    // The publisher is answered at the deadline while the buyer has not answered yet.
    expect(first.outcome?.$case).to.equal('unconfirmed');
    const leadId = first.outcome?.$case === 'unconfirmed' ? first.outcome.value.leadId : '';
    expect(buyers.received('/late')).to.have.length(1);
    expect(await capCount(ids.late), 'the post keeps its cap place while held').to.equal(1);
    return { ids, body, leadId, answer: pending.answer };
  };

  it('sells the lead to the buyer that accepted after the deadline: sale, ledger and cap, posted once, no one else', async () => {
    const { ids, body, leadId, answer } = await heldLead();
    answer({ kind: 'accept', redirectUrl: 'https://late.example/go' });

    const row = await settled(leadId);
    expect(row.status, 'settled by the late answer').to.equal('sold');
    expect(row.buyer_id).to.equal(ids.late);
    expect(await postOf(leadId)).to.deep.equal({ buyer_id: ids.late, state: 'accepted', resolved_by: 'late_answer' });
    const sales = await expectBalancedLedger(market().db, [leadId]);
    expect(sales.map((sale) => [sale.buyer_id, sale.charge_cents])).to.deep.equal([[ids.late, 4000]]);
    expect(await capCount(ids.late), 'the cap place is the sale').to.equal(1);
    expect(buyers.received('/late'), 'posted once').to.have.length(1);
    expect(buyers.received('/next'), 'never offered to another buyer').to.have.length(0);

    const replay = soldOf(await market().submit(body));
    expect(replay).to.include({ leadId, buyerId: ids.late, redirectUrl: 'https://late.example/go' });
    const text = await metrics();
    expect(text).to.match(/leadflow_late_answers_total\{[^}]*outcome="sold"[^}]*\} 1/);
    expect(text).to.match(/leadflow_late_answer_revenue_cents_total\{[^}]*\} 4000/);
  });

  it("writes the late answer where one in time goes: the post's line of the audit trail and the buyer's figures", async () => {
    const { ids, leadId, answer } = await heldLead();
    const learnedMedianMs = async () => {
      const line = (await metrics())
        .split('\n')
        .find(
          (text) =>
            text.startsWith('leadflow_buyer_learned_post_latency_seconds{') &&
            text.includes(ids.late) &&
            text.includes('quantile="0.5"'),
        );
      return line === undefined ? undefined : Number(line.split(' ').at(-1)) * 1000;
    };
    const cutMs = await learnedMedianMs();
    // Cut at the deadline: at most the budget, but for a timer that fires a few ms late on a busy machine.
    expect(cutMs, 'learned from the post cut short at the deadline')
      .to.be.a('number')
      .below(SELL_DEADLINE_MS + 50);
    const answeredAfterMs = 1000;
    await new Promise((resolve) => setTimeout(resolve, answeredAfterMs));
    answer({ kind: 'accept', redirectUrl: 'https://late.example/go' });
    expect((await settled(leadId)).status).to.equal('sold');

    const line = await market()
      .db.selectFrom('buyer_attempts')
      .select(['outcome', 'duration_ms', 'reason'])
      .where('lead_id', '=', leadId)
      .where('kind', '=', 'post')
      .executeTakeFirstOrThrow();
    expect(line.outcome).to.equal('accepted');
    expect(line.reason).to.equal("answered after the sale's deadline");
    expect(Number(line.duration_ms)).to.be.at.least(cutMs! + answeredAfterMs);
    expect(await learnedMedianMs(), 'the buyer is learned by when it answered').to.equal(Number(line.duration_ms));
  });

  it('gives the holds back when the late answer declines: the lead is rejected, and no other buyer gets it', async () => {
    const { ids, leadId, answer } = await heldLead();
    answer({ kind: 'reject', reason: 'not in our area' });

    const row = await settled(leadId);
    expect(row.status).to.equal('rejected');
    expect(await postOf(leadId)).to.deep.equal({ buyer_id: ids.late, state: 'rejected', resolved_by: 'late_answer' });
    expect(await capCount(ids.late), 'the cap place is given back').to.equal(0);
    expect(await market().count('sales', { column: 'lead_id', value: leadId })).to.equal(0);
    expect(await market().count('ledger_entries', { column: 'lead_id', value: leadId })).to.equal(0);
    expect(buyers.received('/next')).to.have.length(0);
    expect(await metrics()).to.match(/leadflow_late_answers_total\{[^}]*outcome="declined"[^}]*\} 1/);
  });

  it('changes nothing when an operator settled the lead before the late answer came: one resolution wins', async () => {
    const { ids, leadId, answer } = await heldLead();
    const { stack } = market();
    await call(
      stack.admin.resolveLead.bind(stack.admin),
      { leadId, sold: false, chargeCents: 0 },
      bearer(stack.service.adminToken),
    );
    answer({ kind: 'accept', redirectUrl: 'https://late.example/go' });

    const until = Date.now() + POST_TIMEOUT_MS + 5000;
    while (!/outcome="settled_elsewhere"/.test(await metrics()) && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await metrics()).to.match(/leadflow_late_answers_total\{[^}]*outcome="settled_elsewhere"[^}]*\} 1/);
    expect((await leadRow(leadId)).status).to.equal('rejected');
    expect(await postOf(leadId)).to.deep.equal({ buyer_id: ids.late, state: 'rejected', resolved_by: 'operator' });
    expect(await market().count('sales', { column: 'lead_id', value: leadId })).to.equal(0);
    expect(await capCount(ids.late)).to.equal(0);
  });
});
