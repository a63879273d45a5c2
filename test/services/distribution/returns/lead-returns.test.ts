import type { Db } from '@leadflow/distribution/src/db/database';
import { GetReportResponse, type ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { sql } from 'kysely';
import { startTestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { PostbackReceiver } from '../../../support/postback-receiver.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import {
  leadIdOf,
  type Market,
  personLead,
  rejectedOf,
  simBuyer,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';
import { waitUntil } from '../../../support/wait-until.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Every lead's entries sum to zero; each account's balance is what its sales and returns say it is. */
async function expectBalancedBooks(db: Db, leadIds: string[]): Promise<void> {
  const entries = await db.selectFrom('ledger_entries').selectAll().where('lead_id', 'in', leadIds).execute();
  const sales = await db.selectFrom('sales').selectAll().where('lead_id', 'in', leadIds).execute();
  const returns = await db.selectFrom('lead_returns').selectAll().where('lead_id', 'in', leadIds).execute();
  for (const leadId of leadIds) {
    const own = entries.filter((entry) => entry.lead_id === leadId);
    expect(
      own.reduce((sum, entry) => sum + Number(entry.amount_cents), 0),
      `entries of ${leadId}`,
    ).to.equal(0);
  }
  const balances = new Map<string, number>();
  for (const entry of entries)
    balances.set(entry.account, (balances.get(entry.account) ?? 0) + Number(entry.amount_cents));
  const expected = new Map<string, number>();
  const add = (account: string, cents: number) => expected.set(account, (expected.get(account) ?? 0) + cents);
  for (const sale of sales) {
    add(`buyer:${sale.buyer_id}`, -sale.charge_cents);
    add(`publisher:${sale.publisher_id}`, sale.payout_cents);
    add('platform', sale.margin_cents);
  }
  for (const row of returns) {
    expect(Number(row.credit_cents), 'credit = clawback + network share').to.equal(
      Number(row.clawback_cents) + Number(row.margin_cents),
    );
    add(`buyer:${row.buyer_id}`, Number(row.credit_cents));
    add(`publisher:${row.publisher_id}`, -Number(row.clawback_cents));
    add('platform', -Number(row.margin_cents));
  }
  expect(Object.fromEntries(balances)).to.deep.equal(Object.fromEntries(expected));
}

/** A report's rows against the sales and returns of its groups, to the cent: net = gross - returns. */
async function expectNetReport(db: Db, rows: ReportRow[], column: 'publisher_id' | 'buyer_id'): Promise<void> {
  for (const row of rows) {
    const sales = await db.selectFrom('sales').selectAll().where(column, '=', row.key).execute();
    const returns = await db.selectFrom('lead_returns').selectAll().where(column, '=', row.key).execute();
    const sum = (values: number[]) => values.reduce((total, value) => total + Number(value), 0);
    const gross = sum(sales.map((sale) => sale.charge_cents));
    const credited = sum(returns.map((r) => r.credit_cents));
    const clawedBack = sum(returns.map((r) => r.clawback_cents));
    expect(row, row.key).to.deep.include({
      revenueCents: gross,
      returns: returns.length,
      returnedRevenueCents: credited,
      returnedPayoutCents: clawedBack,
      netRevenueCents: gross - credited,
      netPayoutCents: sum(sales.map((sale) => sale.payout_cents)) - clawedBack,
      netMarginCents: sum(sales.map((sale) => sale.margin_cents)) - (credited - clawedBack),
    });
    expect(row.returnRate).to.equal(sales.length === 0 ? 0 : returns.length / sales.length);
  }
}

describeEachDatabase('returns: the money after the sale', (database) => {
  const logLines: string[] = [];
  const market = useMarket(database, {
    logger: createLogger('returns-test', 'info', { write: (line: string) => logLines.push(line) }),
  });

  /** Lender A buys the test publisher's leads at $40 (payout $32), lender B the other publisher's at $30. */
  async function returnsMarket(m: Market) {
    const other = await m.createPublisher(6500);
    const simulator = await m.simulate([
      { path: '/a/post', kind: 'direct_post', price: { fixed: 1 } },
      { path: '/b/post', kind: 'direct_post', price: { fixed: 1 } },
    ]);
    const ids = await m.apply([
      simBuyer('lender-a', simulator.url, {
        post: '/a/post',
        pricing: { type: 'fixed', price: '40.00' },
        // A lender that keeps returning a source's leads stops buying them.
        filters: { not: { field: 'publisherId', equals: other.id } },
        schedule: { timezone: 'America/Chicago' },
        returns: {
          windowDays: 7,
          reasons: ['disconnected', 'duplicate', 'fraud'],
          maxRate: { percent: 50, periodDays: 30 },
        },
      }),
      simBuyer('lender-b', simulator.url, {
        post: '/b/post',
        tier: 2,
        pricing: { type: 'fixed', price: '30.00' },
        returns: { windowDays: 3, reasons: ['fraud'] },
      }),
    ]);
    const sell = async (key: string) => soldOf(await m.submit(personLead({ price: '1.00' }), key));
    const a = [];
    for (let i = 0; i < 6; i += 1) a.push(await sell(m.key));
    const b = [];
    for (let i = 0; i < 3; i += 1) b.push(await sell(other.key));
    return { other, ids, a, b };
  }

  it('returns leads through the CLI and a CSV file, keeps the books balanced and the reports net', async () => {
    const m = market();
    const cli: StackCli = stackCli(m.stack);
    const { other, ids, a, b } = await returnsMarket(m);
    expect(a.every((lead) => lead.payoutCents === 3200)).to.equal(true);
    const soldToB = await m.db
      .selectFrom('sales')
      .select('buyer_id')
      .where('lead_id', '=', b[0]!.leadId)
      .executeTakeFirst();
    expect(soldToB?.buyer_id, "the publisher filter keeps the other publisher's leads from lender A").to.equal(
      ids['lender-b'],
    );
    const rejected = await m.submit(personLead({ price: '99.00' }));
    rejectedOf(rejected);

    // The other publisher's returns are half clawed back; the CLI sets it.
    const terms = await cli.json('publisher', 'set-clawback', other.id, '50%');
    expect(terms.clawbackBps).to.equal(5000);

    // A full return, and the same command again: one return.
    const first = await cli.json('lead', 'return', a[0]!.leadId, '--reason', 'disconnected', '--note', 'no answer');
    expect(first.alreadyRecorded).to.equal(false);
    expect(first.leadReturn).to.include({ creditCents: 4000, clawbackCents: 3200, marginCents: 800 });
    const again = await cli.json('lead', 'return', a[0]!.leadId, '--reason', 'disconnected', '--note', 'no answer');
    expect(again.alreadyRecorded).to.equal(true);
    expect(again.leadReturn.returnId).to.equal(first.leadReturn.returnId);
    const second = await cli.leadflow(['lead', 'return', a[0]!.leadId, '--reason', 'fraud']);
    expect(second.code).to.equal(1);
    expect(second.stderr).to.include('already been returned');

    // Refusals, each with its reason.
    const refusal = async (argv: string[], text: string) => {
      const run = await cli.leadflow(['lead', 'return', ...argv]);
      expect(run.code, argv.join(' ')).to.equal(1);
      expect(run.stderr, argv.join(' ')).to.include(text);
    };
    await refusal([a[1]!.leadId, '--reason', 'changed-mind'], 'is not a return reason of buyer lender-a');
    await refusal([leadIdOf(rejected), '--reason', 'fraud'], 'was not sold');
    await m.db
      .updateTable('sales')
      .set({ created_at: Date.now() - 10 * DAY_MS })
      .where('lead_id', '=', a[5]!.leadId)
      .execute();
    await refusal([a[5]!.leadId, '--reason', 'fraud'], 'until 7 days after its day of sale');
    const overCharge = await cli.leadflow(['lead', 'return', a[1]!.leadId, '--reason', 'fraud', '--amount', '40.01']);
    expect(overCharge, "in the command's terms: its option, dollars").to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'leadflow: --amount must be at most $40.00, what the buyer was charged\n',
    });
    const overChargeRow = await cli.leadflow([
      'returns',
      'import',
      await writeTemp(`lead_id,reason,amount\n${a[1]!.leadId},fraud,40.01\n`),
      '--json',
    ]);
    expect(JSON.parse(overChargeRow.stdout).rows[0]).to.include({
      outcome: 'refused',
      reason: 'amount must be at most $40.00, what the buyer was charged',
    });

    // A partial credit: the payout clawed back in the same share.
    const partial = await cli.json('lead', 'return', a[1]!.leadId, '--reason', 'duplicate', '--amount', '10.00');
    expect(partial.leadReturn).to.include({ creditCents: 1000, clawbackCents: 800, marginCents: 200 });

    // The lender's file: good rows, bad rows, each reported on its line.
    const file = [
      'lead_id,clickid,buyer,reason,note,amount',
      `${a[2]!.leadId},,,fraud,"stolen identity, reported",`,
      `,${await clickidOf(m.db, b[0]!.leadId)},lender-b,fraud,,`,
      `${a[3]!.leadId},,,,missing reason,`,
      `${b[1]!.leadId},,lender-a,fraud,,`,
      `${a[4]!.leadId},,,fraud,,`,
      'lead_nope,,,fraud,,',
      `${a[2]!.leadId},,,fraud,too many,fields,here`,
    ].join('\n');
    const path = await writeTemp(file);
    const dry = await cli.leadflow(['returns', 'import', path, '--dry-run', '--json']);
    expect(dry.code).to.equal(1);
    expect(await m.count('ledger_entries', { column: 'lead_id', value: a[2]!.leadId })).to.equal(3);
    const imported = await cli.leadflow(['returns', 'import', path, '--json']);
    expect(imported.code, 'some rows were refused').to.equal(1);
    const report = JSON.parse(imported.stdout);
    const byLine = Object.fromEntries(report.rows.map((row: { line: number }) => [row.line, row]));
    expect(byLine[2].outcome).to.equal('recorded');
    expect(byLine[3].outcome).to.equal('recorded');
    expect(byLine[3].leadId).to.equal(b[0]!.leadId);
    expect(byLine[4]).to.include({ outcome: 'refused', reason: 'needs a reason' });
    expect(byLine[5].outcome).to.equal('refused');
    expect(byLine[5].reason).to.include('sold to another buyer');
    expect(byLine[6].outcome, 'a fourth return of six purchases passes the 50% cap').to.equal('refused');
    expect(byLine[6].reason).to.include('may return at most 50%');
    expect(byLine[7].reason).to.include('no such lead');
    expect(byLine[8].reason).to.include('has 7 fields');
    expect(report).to.include({ recorded: 2, refused: 5 });
    expect(JSON.parse(dry.stdout).rows.map((row: { outcome: string }) => row.outcome)).to.deep.equal([
      'would_record',
      'would_record',
      'refused',
      'refused',
      // A dry run checks each row alone: the rows before it are not recorded, so do not count towards the cap.
      'would_record',
      'refused',
      'refused',
    ]);
    const clawedBack = await m.db
      .selectFrom('lead_returns')
      .selectAll()
      .where('lead_id', '=', b[0]!.leadId)
      .executeTakeFirstOrThrow();
    expect(Number(clawedBack.credit_cents)).to.equal(3000);
    expect(Number(clawedBack.clawback_cents), "half of the other publisher's $19.50 payout").to.equal(975);
    const reimported = JSON.parse((await cli.leadflow(['returns', 'import', path, '--json'])).stdout);
    expect(reimported).to.include({ recorded: 0, alreadyRecorded: 2, refused: 5 });

    // lead show tells the return.
    const shown = await cli.leadflow(['lead', 'show', a[0]!.leadId]);
    expect(shown.stdout).to.match(
      /returned:\s+.*for disconnected \("no answer"\): buyer credited \$40\.00, payout clawed back \$32\.00, network \$8\.00/,
    );

    const leadIds = [...a, ...b].map((lead) => lead.leadId);
    await expectBalancedBooks(m.db, leadIds);
    expect(await m.count('ledger_entries'), 'one sale and one return of 3 entries each, nothing edited').to.equal(
      9 * 3 + 4 * 3,
    );

    const auth = bearer(m.stack.service.adminToken);
    for (const groupBy of [1, 2] as const) {
      const answer = await call(
        m.stack.admin.getReport.bind(m.stack.admin),
        { groupBy, timezone: 'UTC', includeTest: false, startTime: undefined, endTime: undefined },
        auth,
      );
      await expectNetReport(m.db, answer.rows, groupBy === 1 ? 'publisher_id' : 'buyer_id');
      expect(answer.total!.netRevenueCents).to.equal(answer.total!.revenueCents - answer.total!.returnedRevenueCents);
    }
    const csv = await cli.leadflow(['report', '--by', 'publisher', '--format', 'csv']);
    const line = csv.stdout.split('\n').find((row) => row.startsWith(`${m.publisherId},`))!;
    // 6 sold at $40.00, 3 returned: $40.00 + $10.00 + $40.00 credited, $32.00 + $8.00 + $32.00 clawed back.
    expect(line.split(',').slice(-8)).to.deep.equal([
      '3',
      '0.5',
      '90.00',
      '72.00',
      '18.00',
      '150.00',
      '120.00',
      '30.00',
    ]);
    const json = await cli.json('report', '--by', 'day');
    expect(GetReportResponse.fromJSON(json).total!.returns).to.equal(4);

    // Prometheus counts the returns recorded (retries and refusals not), by buyer and reason.
    const scraped = await (await fetch(`http://127.0.0.1:${m.stack.service.metricsPort}/metrics`)).text();
    const counted = (buyer: string, reason: string) =>
      new RegExp(
        `^leadflow_lead_returns_total\\{buyer_id="${ids[buyer]}",buyer_name="${buyer}",reason="${reason}"\\} (\\d+)$`,
        'm',
      ).exec(scraped)?.[1];
    expect([
      counted('lender-a', 'disconnected'),
      counted('lender-a', 'duplicate'),
      counted('lender-a', 'fraud'),
      counted('lender-b', 'fraud'),
    ]).to.deep.equal(['1', '1', '1', '1']);
  });

  it("announces the return by the publisher's postback: what it takes back, the reason, no personal field", async () => {
    const m = market();
    const receiver = new PostbackReceiver();
    await receiver.start();
    try {
      const auth = () => bearer(m.stack.service.adminToken);
      await call(
        m.stack.admin.setPublisherPostback.bind(m.stack.admin),
        { publisherId: m.publisherId, url: receiver.url, local: true },
        auth(),
      );
      const { a } = await returnsMarket(m);
      expect(receiver.received, 'a sale answered at once is not announced').to.have.length(0);
      await call(
        m.stack.admin.returnLead.bind(m.stack.admin),
        {
          requestId: 'ticket-postback',
          leadId: a[0]!.leadId,
          clickid: '',
          buyer: '',
          reason: 'disconnected',
          note: '',
          creditCents: 0,
          dryRun: false,
        },
        auth(),
      );
      await waitUntil('the return announced', () => receiver.events().length === 1);
      const [event] = receiver.events();
      expect(event).to.include({
        type: 'lead.returned',
        leadId: a[0]!.leadId,
        status: 'returned',
        price: 32,
        reason: 'disconnected',
        test: false,
      });
      expect(Object.keys(event!).sort()).to.deep.equal(
        ['buyerId', 'clickid', 'id', 'leadId', 'price', 'reason', 'status', 'test', 'time', 'type'].sort(),
      );
    } finally {
      await receiver.stop();
    }
  });

  it('answers a retry with the same return and a different return of the lead with ALREADY_EXISTS', async () => {
    const m = market();
    const { a } = await returnsMarket(m);
    const auth = () => bearer(m.stack.service.adminToken);
    const returnLead = (requestId: string, reason: string, note = '') =>
      call(
        m.stack.admin.returnLead.bind(m.stack.admin),
        { requestId, leadId: a[0]!.leadId, clickid: '', buyer: '', reason, note, creditCents: 0, dryRun: false },
        auth(),
      );
    const first = await returnLead('ticket-1', 'fraud', 'the applicant said: SSN 123-45-6789');
    const retry = await returnLead('ticket-1', 'fraud');
    expect(retry.alreadyRecorded).to.equal(true);
    expect(retry.leadReturn).to.deep.equal(first.leadReturn);
    const other = await returnLead('ticket-2', 'duplicate').catch((error: { code: number; details: string }) => error);
    expect(other).to.include({ code: 6 });
    expect(await m.count('lead_returns' as never, { column: 'lead_id', value: a[0]!.leadId })).to.equal(1);
    // The audit line names the return, never its free-text note.
    const audited = logLines.filter((line) => line.includes('ReturnLead')).map((line) => JSON.parse(line));
    expect(audited.map((line) => line.request)).to.deep.include({
      requestId: 'ticket-1',
      leadId: a[0]!.leadId,
      clickid: '',
      buyer: '',
      reason: 'fraud',
      creditCents: 0,
      dryRun: false,
    });
    expect(logLines.join('\n')).not.to.include('123-45-6789');
  });
});

describeEachDatabase(
  'returns: two instances, one return',
  (database) => {
    const market = useMarket(database);

    it('records one return when two operators return the same lead at once on two instances', async () => {
      const m = market();
      const simulator = await m.simulate([{ path: '/a/post', kind: 'direct_post', price: { fixed: 1 } }]);
      await m.apply([
        simBuyer('lender-a', simulator.url, {
          post: '/a/post',
          pricing: { type: 'fixed', price: '40.00' },
          returns: { windowDays: 7, reasons: ['fraud'] },
        }),
      ]);
      const second = await startTestDistribution(database());
      try {
        const instances = [m.stack, second];
        for (let round = 0; round < 8; round += 1) {
          const leadId = soldOf(await m.submit(personLead({ price: '1.00' }))).leadId;
          const answers = await Promise.allSettled(
            instances.map((instance, i) =>
              call(
                instance.admin.returnLead.bind(instance.admin),
                {
                  requestId: `operator-${i}-${leadId}`,
                  leadId,
                  clickid: '',
                  buyer: '',
                  reason: 'fraud',
                  note: '',
                  creditCents: 0,
                  dryRun: false,
                },
                bearer(instance.service.adminToken),
              ),
            ),
          );
          const recorded = answers.filter((answer) => answer.status === 'fulfilled');
          expect(recorded, `round ${round}`).to.have.length(1);
          const refused = answers.find((answer) => answer.status === 'rejected') as PromiseRejectedResult;
          expect(refused.reason.code, 'ALREADY_EXISTS').to.equal(6);
          const rows = await m.db
            .selectFrom('lead_returns')
            .select(sql<number>`count(*)`.as('n'))
            .where('lead_id', '=', leadId)
            .executeTakeFirstOrThrow();
          expect(Number(rows.n)).to.equal(1);
          await expectBalancedBooks(m.db, [leadId]);
        }
      } finally {
        await second.close();
      }
    });
  },
  ['mysql'],
);

async function clickidOf(db: Db, leadId: string): Promise<string> {
  return (await db.selectFrom('leads').select('clickid').where('id', '=', leadId).executeTakeFirstOrThrow()).clickid;
}

async function writeTemp(text: string): Promise<string> {
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const path = join(await mkdtemp(join(tmpdir(), 'leadflow-returns-')), 'returns.csv');
  await writeFile(path, text);
  return path;
}
