import { formatCents } from '@leadflow/core/amounts';
import { parseCalendarDate } from '@leadflow/core/calendar-date';
import { startOfDay } from '@leadflow/core/day-start';
import { canonicalTimeZone } from '@leadflow/core/zoned-time';
import { REPORT_GROUPINGS, type ReportGroupingName } from '@leadflow/distribution';
import type { Duration } from '@leadflow/proto/google/protobuf/duration';
import { type GetReportRequest, GetReportResponse, type ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import { reportGroupings } from '@leadflow/service-kit/admin-enums';
import { durationOfMs, msOfDuration, timestampOfMs } from '@leadflow/service-kit/proto-time';
import type { CommandArgs } from '../args.js';
import { csvLine } from '../csv.js';
import { UsageError } from '../errors.js';
import { dollars, table } from '../format.js';
import { jsonOutput, messageJson } from '../json-output.js';
import type { Report } from '../service-calls.js';
import type { Command } from './command.js';

const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];

interface ReportInput {
  request: GetReportRequest;
  groupBy: ReportGroupingName;
  format: Format;
}

function choice<T extends string>(option: string, value: string, choices: readonly T[]): T {
  const chosen = choices.find((candidate) => candidate === value);
  if (!chosen) throw new UsageError(`${option} must be one of ${choices.join(', ')}`);
  return chosen;
}

/** When the day named by the option begins in `timezone`, in epoch ms; 0 (unbounded) when it is absent. */
function dayStart(args: CommandArgs, option: 'from' | 'to', timezone: string): number {
  const raw = args.string(option);
  if (raw === undefined) return 0;
  const date = parseCalendarDate(raw);
  if (!date) throw new UsageError(`--${option} must be a date such as 2026-11-01`);
  return startOfDay(date, timezone);
}

function parse(args: CommandArgs): ReportInput {
  const groupBy = choice('--by', args.requiredString('by'), REPORT_GROUPINGS);
  const timezone = canonicalTimeZone(args.string('timezone') ?? 'UTC');
  if (!timezone) throw new UsageError('--timezone must be an IANA time zone such as America/New_York');
  const fromMs = dayStart(args, 'from', timezone);
  const toMs = dayStart(args, 'to', timezone);
  if (fromMs > 0 && toMs > 0 && fromMs >= toMs) throw new UsageError('--from must be before --to');
  const format = choice('--format', args.string('format') ?? (args.flag('json') ? 'json' : 'table'), FORMATS);
  if (args.flag('json') && format !== 'json') throw new UsageError(`--json contradicts --format ${format}`);
  const request: GetReportRequest = {
    groupBy: reportGroupings.valueOf(groupBy),
    startTime: fromMs === 0 ? undefined : timestampOfMs(fromMs),
    endTime: toMs === 0 ? undefined : timestampOfMs(toMs),
    timezone,
    includeTest: args.flag('include-test'),
  };
  return { request, groupBy, format };
}

const signed = (cents: number, format: (cents: number) => string) => (cents < 0 ? `-${format(-cents)}` : format(cents));
const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

// Rates to 4 decimals, times to 2 decimals of a millisecond: the digits beyond are floating-point noise
// (1817.36 ms is 1817.3600000000001 once read back from a Duration).
const rounded = (rate: number) => Number(rate.toFixed(4));
const milliseconds = (duration: Duration | undefined) => Number(msOfDuration(duration).toFixed(2));

const roundedDuration = (duration: Duration | undefined) => duration && durationOfMs(milliseconds(duration));

/** A row of the report rounded as every format prints it. */
function roundedRow(row: ReportRow): ReportRow {
  return {
    ...row,
    soldRate: rounded(row.soldRate),
    buyerAcceptRate: rounded(row.buyerAcceptRate),
    returnRate: rounded(row.returnRate),
    processingTimeP50: roundedDuration(row.processingTimeP50),
    processingTimeP95: roundedDuration(row.processingTimeP95),
  };
}

/** `--json` and `--format json`: the service's answer, rounded. */
function reportJson(report: Report): unknown {
  return messageJson(GetReportResponse, { rows: report.rows.map(roundedRow), total: roundedRow(report.total) });
}

const FIGURE_HEADERS = [
  'LEADS',
  'SOLD',
  'SOLD %',
  'REVENUE',
  'PAYOUT',
  'MARGIN',
  'P50 MS',
  'P95 MS',
  'POSTS',
  'ACCEPT %',
  'TIMEOUTS',
  'ERRORS',
  'UNKNOWN',
  'RETURNS',
  'RETURN %',
  'NET REVENUE',
  'NET PAYOUT',
  'NET MARGIN',
];

function figureCells(row: ReportRow): string[] {
  return [
    String(row.leads),
    String(row.sold),
    percent(row.soldRate),
    signed(row.revenueCents, dollars),
    signed(row.payoutCents, dollars),
    signed(row.marginCents, dollars),
    milliseconds(row.processingTimeP50).toFixed(2),
    milliseconds(row.processingTimeP95).toFixed(2),
    String(row.posts),
    percent(row.buyerAcceptRate),
    String(row.timeouts),
    String(row.errors),
    String(row.unknownOutcomes),
    String(row.returns),
    percent(row.returnRate),
    signed(row.netRevenueCents, dollars),
    signed(row.netPayoutCents, dollars),
    signed(row.netMarginCents, dollars),
  ];
}

function reportTable(groupBy: ReportGroupingName, report: Report): string {
  const named = groupBy === 'publisher' || groupBy === 'buyer';
  const label = (row: ReportRow) => (named ? [row.name || '-', row.key] : [row.key]);
  return table(
    [...(named ? [groupBy.toUpperCase(), 'ID'] : [groupBy.toUpperCase()]), ...FIGURE_HEADERS],
    [
      ...report.rows.map((row) => [...label(row), ...figureCells(row)]),
      [...(named ? ['TOTAL', ''] : ['TOTAL']), ...figureCells(report.total)],
    ],
  );
}

const CSV_HEADER = [
  'key',
  'name',
  'leads',
  'sold',
  'sold_rate',
  'revenue_usd',
  'payout_usd',
  'margin_usd',
  'processing_p50_ms',
  'processing_p95_ms',
  'posts',
  'buyer_accept_rate',
  'timeouts',
  'errors',
  'unknown_outcomes',
  'returns',
  'return_rate',
  'returned_revenue_usd',
  'returned_payout_usd',
  'returned_margin_usd',
  'net_revenue_usd',
  'net_payout_usd',
  'net_margin_usd',
];

function csvCells(row: ReportRow): string[] {
  return [
    row.key,
    row.name,
    String(row.leads),
    String(row.sold),
    String(rounded(row.soldRate)),
    signed(row.revenueCents, formatCents),
    signed(row.payoutCents, formatCents),
    signed(row.marginCents, formatCents),
    String(milliseconds(row.processingTimeP50)),
    String(milliseconds(row.processingTimeP95)),
    String(row.posts),
    String(rounded(row.buyerAcceptRate)),
    String(row.timeouts),
    String(row.errors),
    String(row.unknownOutcomes),
    String(row.returns),
    String(rounded(row.returnRate)),
    signed(row.returnedRevenueCents, formatCents),
    signed(row.returnedPayoutCents, formatCents),
    signed(row.returnedMarginCents, formatCents),
    signed(row.netRevenueCents, formatCents),
    signed(row.netPayoutCents, formatCents),
    signed(row.netMarginCents, formatCents),
  ];
}

/** A header line, a line per row and the total last (key "total"). */
function reportCsv(report: Report): string {
  const lines = [CSV_HEADER, ...report.rows.map(csvCells), csvCells(report.total)];
  return `${lines.map(csvLine).join('\n')}\n`;
}

function render(input: ReportInput, report: Report): string {
  switch (input.format) {
    case 'table':
      return reportTable(input.groupBy, report);
    case 'json':
      return jsonOutput(reportJson(report));
    case 'csv':
      return reportCsv(report);
  }
}

const report: Command<ReportInput> = {
  group: 'report',
  // The group is the command: `leadflow report --by day`.
  name: '',
  synopsis:
    '--by publisher|buyer|day|hour [--from DATE] [--to DATE] [--timezone ZONE] [--include-test] [--format table|json|csv]',
  summary:
    'leads, sales, money gross and net of returns, processing times and buyer calls by publisher, buyer, day or hour',
  details: [
    '--by GROUPING      publisher, buyer, day or hour. By buyer, LEADS are the leads posted to the buyer',
    '                   and SOLD the ones it bought; the total counts every lead once.',
    '--from DATE        the first day, YYYY-MM-DD, in the time zone (default: no limit)',
    '--to DATE          the day after the last, YYYY-MM-DD, in the time zone (default: no limit)',
    '--timezone ZONE    the IANA time zone of days, hours and dates (default UTC), e.g. America/New_York',
    '--include-test     count test leads too; they are never charged',
    '--format FORMAT    table (default), json (the answer as the service gives it, amounts in cents; the same',
    '                   as --json) or csv (a header line, amounts in dollars, rates from 0 to 1, the total last);',
    '                   rates have at most 4 decimals, milliseconds 2',
    'Revenue, payouts and margin are the ledger entries of the leads created in the range, to the cent: gross,',
    "then NET after the leads' returns (docs/returns.md). RETURNS are the sold leads returned, RETURN % of those sold.",
    'TIMEOUTS are the pings and posts left unanswered; UNKNOWN, the posts among them (the buyer may have the lead).',
  ],
  options: {
    by: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    timezone: { type: 'string' },
    'include-test': { type: 'boolean' },
    format: { type: 'string' },
  },
  positionals: [],
  parse,
  async run(calls, input) {
    const answer = await calls.getReport(input.request);
    return { json: reportJson(answer), text: render(input, answer) };
  },
};

export const reportCommands = [report];
