import type { SubmitLeadResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import {
  endpointStats,
  leadIdOf,
  type Market,
  personLead,
  simBuyer,
  skipReasons,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const CONCURRENT_LEADS = 50;
/** Every buyer answers after a little while, so that the 50 leads really are in flight together. */
const LATENCY = { uniform: [20, 80] as [number, number] };

describeEachDatabase('selling: caps under 50 concurrent leads are never overshot', (database) => {
  const market = useMarket(database);

  const sendAtOnce = (m: Market, count = CONCURRENT_LEADS) =>
    Promise.all(Array.from({ length: count }, () => m.submit(personLead())));

  const buyerOf = (answer: SubmitLeadResponse) =>
    answer.outcome?.$case === 'sold' ? answer.outcome.value.buyerId : undefined;

  /** The cap counters of a buyer by period prefix ("h", "d", "m"), and its sales. */
  async function books(m: Market, buyerId: string) {
    const counters = await m.db.selectFrom('buyer_cap_counters').selectAll().where('buyer_id', '=', buyerId).execute();
    const sales = await m.db
      .selectFrom('sales')
      .select(['lead_id', 'charge_cents'])
      .where('buyer_id', '=', buyerId)
      .execute();
    const byKind = (kind: string) => counters.filter((row) => row.period.startsWith(`${kind}:`));
    return { counters, byKind, sales, spendCents: sales.reduce((sum, sale) => sum + sale.charge_cents, 0) };
  }

  /** Every lead the capped buyer did not get shows it skipped as capped. */
  async function expectCappedSkips(m: Market, answers: SubmitLeadResponse[], cappedId: string) {
    for (const answer of answers.filter((a) => buyerOf(a) !== cappedId)) {
      expect(skipReasons(await m.attempts(leadIdOf(answer)), cappedId), leadIdOf(answer)).to.deep.equal(['capped']);
    }
  }

  it('sells exactly 7 of 50 concurrent leads to a buyer capped at 7 an hour, the rest to the backup', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/capped/post', kind: 'direct_post', price: { fixed: 30 }, latencyMs: LATENCY },
      { path: '/backup/post', kind: 'direct_post', price: { fixed: 10 }, latencyMs: LATENCY },
    ]);
    const ids = await m.apply([
      simBuyer('hourly-capped', simulator.url, {
        post: '/capped/post',
        caps: { leadsPerHour: 7 },
        pricing: { type: 'fixed', price: '30.00' },
      }),
      simBuyer('hourly-backup', simulator.url, { post: '/backup/post', pricing: { type: 'fixed', price: '10.00' } }),
    ]);

    const answers = await sendAtOnce(m);
    const capped = answers.filter((answer) => buyerOf(answer) === ids['hourly-capped']);
    const backup = answers.filter((answer) => buyerOf(answer) === ids['hourly-backup']);
    const { byKind, sales, spendCents } = await books(m, ids['hourly-capped']!);
    const hours = byKind('h');
    // A run that straddles the top of the hour counts in two periods, each capped at 7.
    for (const hour of hours) expect(hour.leads, hour.period).to.be.at.most(7);
    expect(sales.length, 'sales table = counter table').to.equal(hours.reduce((sum, hour) => sum + hour.leads, 0));
    expect(spendCents).to.equal(hours.reduce((sum, hour) => sum + hour.spend_cents, 0));
    if (hours.length === 1) expect(capped).to.have.length(7);
    expect(capped.length + backup.length, 'every lead sold').to.equal(CONCURRENT_LEADS);
    expect(endpointStats(simulator, '/capped/post')).to.include({ posts: capped.length, accepted: capped.length });
    await expectCappedSkips(m, answers, ids['hourly-capped']!);
  });

  it('rejects the leads beyond the cap when there is no other buyer, with capped skips', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/alone/post', kind: 'direct_post', price: { fixed: 30 }, latencyMs: LATENCY },
    ]);
    const ids = await m.apply([
      simBuyer('capped-alone', simulator.url, {
        post: '/alone/post',
        caps: { leadsPerHour: 7 },
        pricing: { type: 'fixed', price: '30.00' },
      }),
    ]);

    const answers = await sendAtOnce(m);
    const sold = answers.filter((answer) => answer.outcome?.$case === 'sold');
    const { byKind, sales } = await books(m, ids['capped-alone']!);
    const hours = byKind('h');
    for (const hour of hours) expect(hour.leads, hour.period).to.be.at.most(7);
    if (hours.length === 1) expect(sold).to.have.length(7);
    expect(sales.length).to.equal(sold.length);
    expect(sales.length).to.equal(hours.reduce((sum, hour) => sum + hour.leads, 0));
    expect(answers.filter((answer) => answer.outcome?.$case === 'rejected')).to.have.length(
      CONCURRENT_LEADS - sold.length,
    );
    expect(endpointStats(simulator, '/alone/post').posts, 'the buyer never saw more leads than its cap').to.equal(
      sold.length,
    );
    await expectCappedSkips(m, answers, ids['capped-alone']!);
  });

  it('sells exactly 7 of 50 concurrent $10.00 leads to a buyer capped at $70.00 spend a day', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/budget/post', kind: 'direct_post', price: { fixed: 10 }, latencyMs: LATENCY },
      { path: '/budget-backup/post', kind: 'direct_post', price: { fixed: 5 }, latencyMs: LATENCY },
    ]);
    const ids = await m.apply([
      simBuyer('budget', simulator.url, {
        post: '/budget/post',
        caps: { spendPerDay: '70.00' },
        pricing: { type: 'fixed', price: '10.00' },
      }),
      simBuyer('budget-backup', simulator.url, {
        post: '/budget-backup/post',
        pricing: { type: 'fixed', price: '5.00' },
      }),
    ]);

    const answers = await sendAtOnce(m);
    const budget = answers.filter((answer) => buyerOf(answer) === ids.budget);
    const { byKind, sales, spendCents } = await books(m, ids.budget!);
    const days = byKind('d');
    for (const day of days) expect(day.spend_cents, day.period).to.be.at.most(7000);
    if (days.length === 1) {
      expect(budget).to.have.length(7);
      expect(days[0]).to.include({ leads: 7, spend_cents: 7000 });
    }
    expect(sales).to.have.length(budget.length);
    expect(spendCents).to.equal(days.reduce((sum, day) => sum + day.spend_cents, 0));
    expect(answers.every((answer) => answer.outcome?.$case === 'sold')).to.equal(true);
    await expectCappedSkips(m, answers, ids.budget!);
  });

  it('holds a ping-post buyer to its spend cap at the prices it bid', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/bidder/ping', kind: 'ping', bid: { fixed: 15 }, latencyMs: LATENCY },
      { path: '/bidder/post', kind: 'post', ping: '/bidder/ping', latencyMs: LATENCY },
    ]);
    const ids = await m.apply([
      simBuyer('budget-bidder', simulator.url, {
        ping: '/bidder/ping',
        post: '/bidder/post',
        caps: { spendPerDay: '100.00' },
      }),
    ]);

    const answers = await sendAtOnce(m, 30);
    const sold = answers.filter((answer) => answer.outcome?.$case === 'sold');
    const { byKind, sales, spendCents } = await books(m, ids['budget-bidder']!);
    const days = byKind('d');
    for (const day of days) expect(day.spend_cents, day.period).to.be.at.most(10_000);
    if (days.length === 1) expect(sold, 'six $15 bids fit in $100, a seventh does not').to.have.length(6);
    expect(sales).to.have.length(sold.length);
    expect(spendCents).to.equal(days.reduce((sum, day) => sum + day.spend_cents, 0));
    expect(endpointStats(simulator, '/bidder/post').accepted).to.equal(sold.length);
  });

  it('holds a direct-post buyer priced by its answer to its spend cap', async () => {
    const m = market();
    // The price is known only from the answer ($20.00): a $50.00 budget has room for two such leads.
    const simulator = await m.simulate([
      { path: '/answer-priced/post', kind: 'direct_post', price: { fixed: 20 }, latencyMs: LATENCY },
      { path: '/answer-priced-backup/post', kind: 'direct_post', price: { fixed: 5 }, latencyMs: LATENCY },
    ]);
    const ids = await m.apply([
      simBuyer('answer-priced', simulator.url, {
        post: '/answer-priced/post',
        caps: { spendPerDay: '50.00' },
        pricing: { type: 'bid' },
      }),
      simBuyer('answer-priced-backup', simulator.url, {
        post: '/answer-priced-backup/post',
        tier: 2,
        pricing: { type: 'fixed', price: '5.00' },
      }),
    ]);

    const answers = await sendAtOnce(m, 20);
    const { byKind, sales, spendCents } = await books(m, ids['answer-priced']!);
    expect(answers.every((answer) => answer.outcome?.$case === 'sold')).to.equal(true);
    for (const day of byKind('d'))
      expect(day.spend_cents, `${day.period}: spend counted against the $50.00 cap`).to.be.at.most(5000);
    expect(spendCents, 'charged to the buyer in one day, against a $50.00 cap').to.be.at.most(5000);
    expect(sales.length).to.be.at.most(2);
  });
});
