import { type ServiceError, status } from '@grpc/grpc-js';
import type { Db } from '@leadflow/distribution/src/db/database';
import { msOfDuration } from '@leadflow/service-kit/proto-time';
import { expect } from 'chai';
import { sql } from 'kysely';
import {
  expectedByBuyer,
  expectedByPublisher,
  expectedByTime,
  expectedTotal,
  namesOf,
  readStore,
  type Scope,
} from '../../../support/expected-report.js';
import {
  ACME,
  BRIGHT,
  FEBRUARY_2026,
  MARCH_2026,
  NIGHT_OWL,
  type ReportMarket,
  type ReportQuery,
  startReportMarket,
} from '../../../support/report-market.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const GROUPINGS = ['publisher', 'buyer', 'day', 'hour'] as const;

/** What the ledger, sales and leads tables hold, summed by the database itself. */
async function tableTotals(db: Db) {
  const ledger = await db
    .selectFrom('ledger_entries')
    .select(['entry_type', sql<number | string>`SUM(amount_cents)`.as('cents')])
    .groupBy('entry_type')
    .execute();
  const cents = (type: string) => Number(ledger.find((entry) => entry.entry_type === type)?.cents ?? 0);
  const count = async (query: Promise<{ n: number | string | bigint }>) => Number((await query).n);
  return {
    revenueCents: -cents('buyer_charge'),
    payoutCents: cents('publisher_payout'),
    marginCents: cents('platform_margin'),
    sales: await count(
      db
        .selectFrom('sales')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ),
    liveLeads: await count(
      db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_test', '=', 0)
        .executeTakeFirstOrThrow(),
    ),
    soldLiveLeads: await count(
      db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_test', '=', 0)
        .where('status', '=', 'sold')
        .executeTakeFirstOrThrow(),
    ),
  };
}

describeEachDatabase('reports: GetReport', (database) => {
  let market: ReportMarket;
  let db: Db;

  before(async function () {
    this.timeout(120_000);
    market = await startReportMarket(database());
    db = market.stack.service.db;
  });
  after(async () => {
    await market?.close();
  });

  const live = (request: ReportQuery = {}) => ({ fromMs: market.liveFromMs, ...request });

  it('totals equal the ledger and the leads and sales tables, to the cent, whatever the grouping', async () => {
    const tables = await tableTotals(db);
    expect(tables.sales).to.equal(tables.soldLiveLeads);
    for (const groupBy of GROUPINGS) {
      const { total, rows } = await market.report({ groupBy, timezone: 'America/New_York' });
      expect(total, groupBy).to.include({
        leads: tables.liveLeads,
        sold: tables.sales,
        revenueCents: tables.revenueCents,
        payoutCents: tables.payoutCents,
        marginCents: tables.marginCents,
      });
      expect(total!.revenueCents).to.equal(total!.payoutCents + total!.marginCents);
      if (groupBy === 'buyer') continue;
      // Publishers, days and hours split the leads: their rows add up to the total.
      for (const figure of [
        'leads',
        'sold',
        'revenueCents',
        'payoutCents',
        'marginCents',
        'posts',
        'timeouts',
        'errors',
        'unknownOutcomes',
      ] as const) {
        expect(
          rows.reduce((sum, row) => sum + row[figure], 0),
          `${groupBy} ${figure}`,
        ).to.equal(total![figure]);
      }
    }
  });

  it('reports the live market by publisher: leads, sales and money per publisher, names from the publishers', async () => {
    const { rows, total } = await market.report(live({ groupBy: 'publisher' }));
    expect(
      rows.map((row) => [row.name, row.key, row.leads, row.sold, row.revenueCents, row.payoutCents, row.marginCents]),
    ).to.deep.equal([
      // Alpha pays $25 (two Acme leads, both Bright leads), Beta $30 (one Acme lead); payouts are 80 % and 70 %.
      [ACME, market.publishers.acme, 4, 3, 8000, 6400, 1600],
      [BRIGHT, market.publishers.bright, 2, 2, 5000, 3500, 1500],
    ]);
    expect(rows[0]!.soldRate).to.equal(0.75);
    expect(total).to.include({
      key: 'total',
      leads: 6,
      sold: 5,
      soldRate: 5 / 6,
      revenueCents: 13000,
      payoutCents: 9900,
      marginCents: 3100,
    });
    const store = await readStore(db, { fromMs: market.liveFromMs });
    expect(rows).to.deep.equal(expectedByPublisher(store, await namesOf(db, 'publishers')));
    expect(total).to.deep.equal(expectedTotal(store));
  });

  it('reports by buyer: leads posted to it, its sales and money, accept rate, timeouts, errors and unknown outcomes', async () => {
    const { rows, total } = await market.report(live({ groupBy: 'buyer' }));
    const byName = new Map(rows.map((row) => [row.name, row]));
    expect([...byName.keys()]).to.deep.equal(['Alpha', 'Beta', 'Flaky', 'Picky', 'Slow']);
    expect(byName.get('Alpha')).to.include({
      key: market.buyers.alpha,
      leads: 6,
      sold: 4,
      posts: 6,
      revenueCents: 10000,
      buyerAcceptRate: 4 / 6,
    });
    expect(byName.get('Beta')).to.include({
      leads: 2,
      sold: 1,
      posts: 2,
      revenueCents: 3000,
      payoutCents: 2400,
      buyerAcceptRate: 0.5,
    });
    expect(byName.get('Picky')).to.include({ leads: 6, sold: 0, posts: 6, buyerAcceptRate: 0, timeouts: 0, errors: 0 });
    // A buyer that only fails is paused at its fifth failure: the sixth lead skipped Flaky and Slow.
    expect(byName.get('Flaky')).to.include({
      leads: 5,
      posts: 5,
      errors: 5,
      timeouts: 0,
      unknownOutcomes: 0,
      revenueCents: 0,
    });
    // Its contract counts an unanswered post as declined: a timeout, not an unknown outcome.
    expect(byName.get('Slow')).to.include({ leads: 5, posts: 5, errors: 0, timeouts: 5, unknownOutcomes: 0 });
    // The total counts each lead once, however many buyers saw it; the calls add up.
    expect(total).to.include({
      leads: 6,
      sold: 5,
      revenueCents: 13000,
      posts: 24,
      errors: 5,
      timeouts: 5,
      unknownOutcomes: 0,
    });
    expect(total!.buyerAcceptRate).to.equal(5 / 24);

    const store = await readStore(db, { fromMs: market.liveFromMs });
    expect(rows).to.deep.equal(expectedByBuyer(store, await namesOf(db, 'buyers')));
    expect(total).to.deep.equal(expectedTotal(store));
  });

  it('leaves test leads out unless asked for: they count as leads and sales, never as money', async () => {
    const without = await market.report(live({ groupBy: 'publisher' }));
    const withTest = await market.report(live({ groupBy: 'publisher', includeTest: true }));
    const acme = (report: typeof without) => report.rows.find((row) => row.name === ACME)!;
    expect([acme(without).leads, acme(without).sold]).to.deep.equal([4, 3]);
    expect([acme(withTest).leads, acme(withTest).sold]).to.deep.equal([6, 5]);
    expect(acme(withTest).revenueCents).to.equal(acme(without).revenueCents);
    expect(withTest.total).to.include({ leads: 8, sold: 7, revenueCents: 13000 });

    const scope: Scope = { fromMs: market.liveFromMs, includeTest: true };
    const store = await readStore(db, scope);
    expect(withTest.rows).to.deep.equal(expectedByPublisher(store, await namesOf(db, 'publishers')));
    const byBuyer = await market.report(live({ groupBy: 'buyer', includeTest: true }));
    expect(byBuyer.rows).to.deep.equal(expectedByBuyer(store, await namesOf(db, 'buyers')));
  });

  it('buckets leads by day in the requested zone: leads either side of midnight land on their own local day', async () => {
    const newYork = await market.report({ groupBy: 'day', timezone: 'America/New_York', ...MARCH_2026 });
    expect(newYork.rows.map((row) => [row.key, row.leads])).to.deep.equal([
      ['2026-03-07', 1],
      ['2026-03-08', 2],
      ['2026-03-09', 3],
    ]);
    const utc = await market.report({ groupBy: 'day', ...MARCH_2026 });
    expect(utc.rows.map((row) => [row.key, row.leads])).to.deep.equal([
      ['2026-03-08', 2],
      ['2026-03-09', 2],
      ['2026-03-10', 2],
    ]);
    // Each moved lead was sold to Alpha: its money goes with it.
    expect(newYork.rows.map((row) => row.revenueCents)).to.deep.equal([2500, 5000, 7500]);

    const store = await readStore(db, MARCH_2026);
    expect(newYork.rows).to.deep.equal(expectedByTime(store, 'day', 'America/New_York'));
    expect(newYork.total).to.deep.equal(utc.total);
  });

  it('buckets leads by local hour, across a daylight saving change and in a zone 45 minutes off the hour', async () => {
    const newYork = await market.report({ groupBy: 'hour', timezone: 'America/New_York', ...MARCH_2026 });
    expect(newYork.rows.map((row) => [row.key, row.leads])).to.deep.equal([
      ['2026-03-07T23', 1],
      ['2026-03-08T00', 1],
      ['2026-03-08T23', 1],
      ['2026-03-09T00', 1],
      ['2026-03-09T20', 2],
    ]);
    const kathmandu = await market.report({ groupBy: 'hour', timezone: 'Asia/Kathmandu', ...MARCH_2026 });
    expect(kathmandu.rows.slice(-2).map((row) => [row.key, row.leads])).to.deep.equal([
      ['2026-03-10T05', 1],
      ['2026-03-10T06', 1],
    ]);
    const store = await readStore(db, MARCH_2026);
    expect(kathmandu.rows).to.deep.equal(expectedByTime(store, 'hour', 'Asia/Kathmandu'));
    expect(newYork.rows).to.deep.equal(expectedByTime(store, 'hour', 'America/New_York'));
  });

  it('takes processing percentiles by nearest rank from the leads processing times', async () => {
    const { rows, total } = await market.report({ groupBy: 'publisher', ...FEBRUARY_2026 });
    expect(rows.map((row) => row.name)).to.deep.equal([NIGHT_OWL]);
    // Twenty times of 1 to 20 ms: the 10th is the median, the 19th the 95th percentile.
    expect(total!.leads).to.equal(20);
    expect(total!.processingTimeP50).to.deep.equal({ seconds: 0, nanos: 10_000_000 });
    expect(total!.processingTimeP95).to.deep.equal({ seconds: 0, nanos: 19_000_000 });
    const live = await market.report({ groupBy: 'publisher', fromMs: market.liveFromMs });
    expect(msOfDuration(live.total!.processingTimeP95))
      .to.be.at.least(msOfDuration(live.total!.processingTimeP50))
      .and.above(0);
  });

  it('honours the range: inclusive start, exclusive end', async () => {
    const at = Date.parse('2026-03-08T05:00:00.000Z');
    const from = await market.report({ groupBy: 'day', fromMs: at, toMs: at + 1 });
    expect(from.total!.leads).to.equal(1);
    const before = await market.report({ groupBy: 'day', fromMs: at - 1, toMs: at });
    expect(before.total!.leads).to.equal(1);
    const empty = await market.report({ groupBy: 'buyer', fromMs: at + 1, toMs: at + 2 });
    expect(empty.rows).to.deep.equal([]);
    expect(empty.total).to.include({ leads: 0, sold: 0, revenueCents: 0, soldRate: 0, buyerAcceptRate: 0 });
    // No leads, no processing time: unset rather than zero.
    expect(empty.total!.processingTimeP50).to.equal(undefined);
  });

  it('refuses an unknown grouping, an unknown time zone and an empty range as invalid arguments', async () => {
    const refusal = async (request: ReportQuery) => {
      const error = (await market.report(request).then(
        () => expect.fail('answered'),
        (failure: unknown) => failure,
      )) as ServiceError;
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
      return error.details;
    };
    expect(await refusal({ groupBy: '' })).to.equal(
      'group_by must be one of REPORT_GROUPING_PUBLISHER, REPORT_GROUPING_BUYER, REPORT_GROUPING_DAY, REPORT_GROUPING_HOUR',
    );
    expect(await refusal({ groupBy: 'day', timezone: 'Mars/Olympus_Mons' })).to.include(
      'timezone must be an IANA time zone',
    );
    expect(await refusal({ groupBy: 'day', fromMs: 2000, toMs: 1000 })).to.equal('end_time must be after start_time');
    expect(await refusal({ groupBy: 'day', fromMs: -5 })).to.equal(
      'start_time must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
    );
  });
});
