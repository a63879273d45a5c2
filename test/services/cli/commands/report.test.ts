import { durationJson } from '@leadflow/cli/src/json-output';
import { ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import { durationOfMs, msOfDuration } from '@leadflow/service-kit/proto-time';
import { expect } from 'chai';
import { validLeadBody } from '../../../support/leads.js';
import {
  ACME,
  BRIGHT,
  FEBRUARY_PROCESSING_MS,
  MARCH_2026,
  NIGHT_OWL,
  type ReportMarket,
  startReportMarket,
} from '../../../support/report-market.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const CSV_HEADER =
  'key,name,leads,sold,sold_rate,revenue_usd,payout_usd,margin_usd,processing_p50_ms,processing_p95_ms,posts,buyer_accept_rate,timeouts,errors,unknown_outcomes,' +
  'returns,return_rate,returned_revenue_usd,returned_payout_usd,returned_margin_usd,net_revenue_usd,net_payout_usd,net_margin_usd';

/** The cells of CSV lines as RFC 4180 reads them: quoted fields may hold commas and doubled quotes. */
function csvCells(line: string): string[] {
  return [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map(([, field]) =>
    field!.startsWith('"') ? field!.slice(1, -1).replaceAll('""', '"') : field!,
  );
}

describeEachDatabase('reports: leadflow report', (database) => {
  let market: ReportMarket;
  let cli: StackCli;

  before(async function () {
    this.timeout(120_000);
    market = await startReportMarket(database());
    cli = stackCli(market.stack);
  });
  after(async () => {
    await market?.close();
  });

  it('prints a table for people: money in dollars, rates as percentages, a total line', async () => {
    const run = await cli.leadflow(['report', '--by', 'publisher']);
    expect(run.code).to.equal(0);
    expect(run.stderr).to.equal('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(
      /^PUBLISHER\s+ID\s+LEADS\s+SOLD\s+SOLD %\s+REVENUE\s+PAYOUT\s+MARGIN\s+P50 MS\s+P95 MS\s+POSTS\s+ACCEPT %\s+TIMEOUTS\s+ERRORS\s+UNKNOWN\s+RETURNS\s+RETURN %\s+NET REVENUE\s+NET PAYOUT\s+NET MARGIN$/,
    );
    const acme = lines.find((line) => line.startsWith(ACME))!;
    expect(acme.split(/\s{2,}/).slice(1, 8)).to.deep.equal([
      market.publishers.acme,
      '4',
      '3',
      '75.0%',
      '$80.00',
      '$64.00',
      '$16.00',
    ]);
    expect(
      lines
        .find((line) => line.startsWith(BRIGHT))!
        .split(/\s{2,}/)
        .slice(2, 5),
    ).to.deep.equal(['2', '2', '100.0%']);
    const { total } = await market.report({ groupBy: 'publisher' });
    const totalCells = lines.at(-1)!.split(/\s{2,}/);
    expect(totalCells.slice(0, 7)).to.deep.equal([
      'TOTAL',
      String(total!.leads),
      String(total!.sold),
      `${((total!.sold / total!.leads) * 100).toFixed(1)}%`,
      `$${(total!.revenueCents / 100).toFixed(2)}`,
      `$${(total!.payoutCents / 100).toFixed(2)}`,
      `$${(total!.marginCents / 100).toFixed(2)}`,
    ]);
  });

  it('prints CSV that no spreadsheet runs as a formula: a name starting with = gets an apostrophe', async () => {
    const run = await cli.leadflow([
      'report',
      '--by',
      'publisher',
      '--format',
      'csv',
      '--from',
      '2026-02-01',
      '--to',
      '2026-03-01',
    ]);
    expect(run.code).to.equal(0);
    const row = csvCells(run.stdout.split('\n')[1]!);
    expect(row[1]).to.equal(`'${NIGHT_OWL}`);
    expect(row[2], "Night Owl's February leads").to.equal(String(FEBRUARY_PROCESSING_MS.length));
  });

  it('prints the JSON answer with --json and with --format json, amounts in cents, durations as strings, rates rounded', async () => {
    const json = await cli.json('report', '--by', 'buyer', '--include-test');
    const answer = await market.report({ groupBy: 'buyer', includeTest: true });
    // The proto JSON mapping's Duration: seconds with 3, 6 or 9 fractional digits (or none).
    const asJson = (row: ReportRow) => ({
      ...(ReportRow.toJSON(row) as object),
      soldRate: Number(row.soldRate.toFixed(4)),
      buyerAcceptRate: Number(row.buyerAcceptRate.toFixed(4)),
      returnRate: Number(row.returnRate.toFixed(4)),
      processingTimeP50: durationJson(durationOfMs(Number(msOfDuration(row.processingTimeP50).toFixed(2)))),
      processingTimeP95: durationJson(durationOfMs(Number(msOfDuration(row.processingTimeP95).toFixed(2)))),
    });
    expect(json).to.deep.equal({ rows: answer.rows.map(asJson), total: asJson(answer.total!) });
    expect(json.total.processingTimeP50).to.match(/^\d+(\.\d{3}|\.\d{6}|\.\d{9})?s$/);
    const format = await cli.leadflow(['report', '--by', 'buyer', '--include-test', '--format', 'json']);
    expect(format.code).to.equal(0);
    expect(JSON.parse(format.stdout)).to.deep.equal(json);
  });

  it('prints CSV: a header line, dollars with two decimals, quoted names, the total last', async () => {
    const run = await cli.leadflow(['report', '--by', 'publisher', '--format', 'csv']);
    expect(run.code).to.equal(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).to.equal(CSV_HEADER);
    expect(lines.at(-1)).to.equal('');
    const acme = lines.find((line) => line.startsWith(`${market.publishers.acme},`))!;
    expect(acme.startsWith(`${market.publishers.acme},"Acme, ""Loans"" Inc",4,3,0.75,80.00,64.00,16.00,`)).to.equal(
      true,
    );
    expect(csvCells(acme)).to.have.length(23);
    expect(csvCells(acme)[1]).to.equal(ACME);

    const report = await market.report({ groupBy: 'publisher' });
    const total = csvCells(lines.at(-2)!);
    expect(total.slice(0, 8)).to.deep.equal([
      'total',
      '',
      String(report.total!.leads),
      String(report.total!.sold),
      String(Number(report.total!.soldRate.toFixed(4))),
      (report.total!.revenueCents / 100).toFixed(2),
      (report.total!.payoutCents / 100).toFixed(2),
      (report.total!.marginCents / 100).toFixed(2),
    ]);
    expect(total.slice(8, 15)).to.deep.equal(
      [
        Number(msOfDuration(report.total!.processingTimeP50).toFixed(2)),
        Number(msOfDuration(report.total!.processingTimeP95).toFixed(2)),
        report.total!.posts,
        Number(report.total!.buyerAcceptRate.toFixed(4)),
        report.total!.timeouts,
        report.total!.errors,
        report.total!.unknownOutcomes,
      ].map(String),
    );
    const dollars = (cents: number) => (cents / 100).toFixed(2);
    expect(total.slice(15)).to.deep.equal([
      String(report.total!.returns),
      String(Number(report.total!.returnRate.toFixed(4))),
      dollars(report.total!.returnedRevenueCents),
      dollars(report.total!.returnedPayoutCents),
      dollars(report.total!.returnedMarginCents),
      dollars(report.total!.netRevenueCents),
      dollars(report.total!.netPayoutCents),
      dollars(report.total!.netMarginCents),
    ]);
    expect(lines).to.have.length(report.rows.length + 3);
  });

  it('takes --from and --to as days in --timezone', async () => {
    const newYork = await cli.json(
      'report',
      '--by',
      'day',
      '--from',
      '2026-03-08',
      '--to',
      '2026-03-09',
      '--timezone',
      'America/New_York',
    );
    expect(newYork.rows.map((row: { key: string; leads: number }) => [row.key, row.leads])).to.deep.equal([
      ['2026-03-08', 2],
    ]);
    const utc = await cli.json('report', '--by', 'day', '--from', '2026-03-08', '--to', '2026-03-09');
    expect(utc.rows.map((row: { key: string; leads: number }) => [row.key, row.leads])).to.deep.equal([
      ['2026-03-08', 2],
    ]);
    expect(utc.rows[0].revenueCents).to.equal(5000);
    const march = await cli.leadflow([
      'report',
      '--by',
      'day',
      '--from',
      '2026-03-01',
      '--to',
      '2026-04-01',
      '--timezone',
      'America/New_York',
    ]);
    expect(
      march.stdout
        .split('\n')
        .slice(1, 4)
        .map((line) => line.split(/\s{2,}/).slice(0, 2)),
    ).to.deep.equal([
      ['2026-03-07', '1'],
      ['2026-03-08', '2'],
      ['2026-03-09', '3'],
    ]);
    expect((await market.report({ groupBy: 'day', ...MARCH_2026 })).total!.leads).to.equal(6);
  });

  it('refuses a command line it cannot run before calling the service, pointing to its usage', async () => {
    const usage = async (argv: string[]) => {
      const run = await cli.leadflow(['report', ...argv]);
      expect(run.code, argv.join(' ')).to.equal(2);
      expect(run.stdout).to.equal('');
      expect(run.stderr.split('\n')[1]).to.equal("Run 'leadflow report --help' for usage.");
      return run.stderr.split('\n')[0];
    };
    expect(await usage([])).to.equal('leadflow: --by is required');
    expect(await usage(['--by', 'week'])).to.equal('leadflow: --by must be one of publisher, buyer, day, hour');
    expect(await usage(['--by', 'day', '--format', 'xml'])).to.equal(
      'leadflow: --format must be one of table, json, csv',
    );
    expect(await usage(['--by', 'day', '--format', 'csv', '--json'])).to.equal(
      'leadflow: --json contradicts --format csv',
    );
    expect(await usage(['--by', 'day', '--from', '2026-02-30'])).to.equal(
      'leadflow: --from must be a date such as 2026-11-01',
    );
    expect(await usage(['--by', 'day', '--from', '2026-12-01', '--to', '2026-11-01'])).to.equal(
      'leadflow: --from must be before --to',
    );
    expect(await usage(['--by', 'day', '--timezone', 'Mars/Olympus_Mons'])).to.equal(
      'leadflow: --timezone must be an IANA time zone such as America/New_York',
    );
  });

  it('rounds what it prints: milliseconds to 2 decimals, rates to 4, in CSV, JSON and the table', async () => {
    // A test lead of its own, alone in its hour, whose processing time reads back as 1817.3600000000001 ms.
    const { key } = await market.stack.createPublisher();
    const answer = await market.stack.submit(key, validLeadBody({ testMode: '1' }));
    const leadId = answer.outcome?.$case === 'sold' ? answer.outcome.value.leadId : '';
    await market.stack.service.db
      .updateTable('leads')
      .set({ created_at: Date.parse('2025-06-01T10:20:00Z'), processing_ms: 1817.36 })
      .where('id', '=', leadId)
      .execute();
    const hour = ['report', '--by', 'hour', '--from', '2025-06-01', '--to', '2025-06-02', '--include-test'];

    const csv = csvCells((await cli.leadflow([...hour, '--format', 'csv'])).stdout.split('\n')[1]!);
    const cell = (name: string) => csv[CSV_HEADER.split(',').indexOf(name)];
    expect([cell('processing_p50_ms'), cell('processing_p95_ms')]).to.deep.equal(['1817.36', '1817.36']);
    const table = (await cli.leadflow(hour)).stdout.split('\n')[1]!.split(/\s{2,}/);
    expect(table.slice(7, 9)).to.deep.equal(['1817.36', '1817.36']);

    const decimals = (value: number) => String(value).split('.')[1]?.length ?? 0;
    const ownHour = await cli.json(...hour);
    expect(ownHour.total.processingTimeP50, 'to 10 µs, as the proto JSON mapping writes it').to.equal('1.817360s');
    const json = await cli.json('report', '--by', 'hour', '--include-test');
    for (const row of [...json.rows, json.total]) {
      for (const time of [row.processingTimeP50, row.processingTimeP95])
        expect(time, `${row.key}: ${time}`).to.match(/^\d+(\.\d{3}|\.\d{5}0)?s$/);
      for (const rate of [row.soldRate, row.buyerAcceptRate, row.returnRate])
        expect(decimals(rate), `${row.key}: ${rate}`).to.be.at.most(4);
    }
  });

  it('is listed in the help and explains itself', async () => {
    const help = await cli.leadflow(['help']);
    expect(help.stdout).to.include('  leadflow report --by publisher|buyer|day|hour [--from DATE]');
    const own = await cli.leadflow(['help', 'report']);
    expect(own.code).to.equal(0);
    expect(own.stdout).to.match(/^Usage: leadflow report --by /);
  });
});
