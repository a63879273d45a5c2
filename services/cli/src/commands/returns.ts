import { createHash } from 'node:crypto';
import { type ReturnLeadRequest, ReturnLeadResponse } from '@leadflow/proto/leadflow/admin/v1/admin';
import type { LeadReturn } from '@leadflow/proto/leadflow/admin/v1/leads';
import { parseCents } from '../args.js';
import { type CsvRecord, csvRecords } from '../csv-rows.js';
import { CliFailure, reworded } from '../errors.js';
import { dollars, table } from '../format.js';
import { messageJson } from '../json-output.js';
import { readText } from '../source-document.js';
import type { Command } from './command.js';

/**
 * A request id made of what the return says: running the same command or importing the same file again
 * finds the return already recorded instead of asking for a second one.
 */
function contentRequestId(kind: string, parts: (string | number)[]): string {
  return `${kind}-${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 48)}`;
}

function returnSummary(leadReturn: LeadReturn): string {
  return (
    `buyer credited ${dollars(leadReturn.creditCents)}, publisher's payout clawed back ` +
    `${dollars(leadReturn.clawbackCents)}, borne by the network ${dollars(leadReturn.marginCents)}`
  );
}

/** The service's refusal of a credit over the charge, in the words of the option or column that gave it. */
function creditOverCharge(error: unknown, what: string): unknown {
  return reworded(
    error,
    'CREDIT_OVER_CHARGE',
    ({ chargeCents }) => `${what} must be at most ${dollars(Number(chargeCents))}, what the buyer was charged`,
  );
}

export interface LeadReturnInput {
  request: ReturnLeadRequest;
}

const returnLead: Command<LeadReturnInput> = {
  group: 'lead',
  name: 'return',
  synopsis: 'LEAD_ID --reason CODE [--note TEXT] [--amount DOLLARS] [--request-id ID] [--dry-run]',
  summary: "record a buyer's return of a sold lead: the buyer credited, the publisher's payout clawed back",
  details: [
    "--reason CODE      one of the buyer's return reason codes (returns.reasons in the buyer file)",
    '--note TEXT        kept with the return (at most 500 characters)',
    '--amount DOLLARS   a partial credit (a price adjustment); default: all the buyer was charged',
    '--request-id ID    the key that makes a retry safe; default: made of the lead, reason and amount,',
    '                   so running the same command again finds the return already recorded',
    "--dry-run          check the return against the buyer's terms and show its money; record nothing",
    'A lead is returned once. Refused: a lead not sold, outside the return window, a reason the buyer',
    "does not have, over the buyer's return cap, or already returned. See docs/returns.md.",
    'With --json, prints {"leadReturn": ..., "alreadyRecorded": ...} as the service returns it.',
  ],
  options: {
    reason: { type: 'string' },
    note: { type: 'string' },
    amount: { type: 'string' },
    'request-id': { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
  positionals: ['LEAD_ID'],
  parse(args) {
    const leadId = args.positionals[0]!;
    const reason = args.requiredString('reason');
    const creditCents = args.cents('amount') ?? 0;
    return {
      request: {
        requestId: args.string('request-id') ?? contentRequestId('cli', [leadId, reason, creditCents]),
        leadId,
        clickid: '',
        buyer: '',
        reason,
        note: args.string('note') ?? '',
        creditCents,
        dryRun: args.flag('dry-run'),
      },
    };
  },
  async run(calls, input) {
    const answer = await calls.returnLead(input.request).catch((error: unknown) => {
      throw creditOverCharge(error, '--amount');
    });
    const leadReturn = answer.leadReturn!;
    const what = input.request.dryRun
      ? 'would be returned'
      : answer.alreadyRecorded
        ? `was already returned (${leadReturn.returnId})`
        : `is returned (${leadReturn.returnId})`;
    return {
      json: messageJson(ReturnLeadResponse, answer),
      text: `Lead ${leadReturn.leadId} ${what} for "${leadReturn.reason}": ${returnSummary(leadReturn)}.\n`,
    };
  },
};

const COLUMNS = ['lead_id', 'clickid', 'buyer', 'reason', 'note', 'amount'] as const;
type Column = (typeof COLUMNS)[number];

/** A row of the file as a request, or why it is refused before anything is sent. */
function rowRequest(record: CsvRecord, header: Column[], dryRun: boolean): ReturnLeadRequest | string {
  if (record.cells.length !== header.length) {
    return `has ${record.cells.length} fields; the header has ${header.length}`;
  }
  const cell = (column: Column) => (record.cells[header.indexOf(column)] ?? '').trim();
  const [leadId, clickid, buyer, reason] = [cell('lead_id'), cell('clickid'), cell('buyer'), cell('reason')];
  if (leadId === '' && (clickid === '' || buyer === '')) return 'needs a lead_id, or a clickid and a buyer';
  if (reason === '') return 'needs a reason';
  let creditCents = 0;
  if (cell('amount') !== '') {
    try {
      creditCents = parseCents('amount', cell('amount'));
    } catch (error) {
      return (error as Error).message;
    }
  }
  return {
    requestId: contentRequestId('csv', [leadId, clickid, buyer, reason, creditCents]),
    leadId,
    clickid,
    buyer,
    reason,
    note: cell('note'),
    creditCents,
    dryRun,
  };
}

function readHeader(record: CsvRecord | undefined): Column[] {
  if (!record) throw new CliFailure('the file is empty: it needs a header line, then a line per return');
  const header = record.cells.map((cell) => cell.trim().toLowerCase());
  const unknown = header.find((name) => !(COLUMNS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw new CliFailure(`line ${record.line}: unknown column "${unknown}"; the columns are ${COLUMNS.join(', ')}`);
  }
  if (!header.includes('reason') || !(header.includes('lead_id') || header.includes('clickid'))) {
    throw new CliFailure(`line ${record.line}: the header needs reason, and lead_id or clickid and buyer`);
  }
  return header as Column[];
}

interface ImportInput {
  file: string;
  header: Column[];
  rows: { line: number; request: ReturnLeadRequest | string }[];
  dryRun: boolean;
}

type RowOutcome = 'recorded' | 'already_recorded' | 'would_record' | 'refused';

interface RowReport {
  line: number;
  outcome: RowOutcome;
  leadId: string;
  /** Why a refused row was refused. */
  reason: string;
  leadReturn: LeadReturn | undefined;
}

const importReturns: Command<ImportInput> = {
  group: 'returns',
  name: 'import',
  synopsis: 'FILE.csv [--dry-run]',
  summary: "record a lender's file of returns, row by row, with a report of each row",
  details: [
    'FILE.csv has a header line naming its columns, in any order: lead_id, clickid, buyer, reason, note, amount.',
    'Each row names the lead by lead_id, or by clickid and buyer (the id or name of the buyer it was sold to),',
    "with one of the buyer's reason codes; amount (dollars) is a partial credit, empty for the whole charge.",
    'A bad row is refused with its line number and the others go on; the exit code is 1 when any row was refused.',
    'Importing the same file again records nothing twice: its rows are reported as already recorded.',
    "--dry-run          check every row against the buyers' terms; record nothing",
    'With --json, prints {"rows": [{"line", "outcome", "leadId", "reason", "leadReturn"}], ...counts}.',
  ],
  options: { 'dry-run': { type: 'boolean' } },
  positionals: ['FILE'],
  async parse(args, stdin) {
    const file = args.positionals[0]!;
    const dryRun = args.flag('dry-run');
    let records: CsvRecord[];
    try {
      records = csvRecords(await readText(file, stdin));
    } catch (error) {
      if (error instanceof CliFailure) throw error;
      throw new CliFailure(`${file}: ${(error as Error).message}`);
    }
    const header = readHeader(records[0]);
    const rows = records.slice(1).map((record) => ({ line: record.line, request: rowRequest(record, header, dryRun) }));
    return { file, header, rows, dryRun };
  },
  async run(calls, input) {
    const reports: RowReport[] = [];
    for (const { line, request } of input.rows) {
      if (typeof request === 'string') {
        reports.push({ line, outcome: 'refused', leadId: '', reason: request, leadReturn: undefined });
        continue;
      }
      try {
        const answer = await calls.returnLead(request);
        const outcome = input.dryRun ? 'would_record' : answer.alreadyRecorded ? 'already_recorded' : 'recorded';
        const leadReturn = answer.leadReturn!;
        reports.push({ line, outcome, leadId: leadReturn.leadId, reason: '', leadReturn });
      } catch (caught) {
        const error = creditOverCharge(caught, 'amount');
        if (!(error instanceof CliFailure)) throw error;
        reports.push({
          line,
          outcome: 'refused',
          leadId: request.leadId,
          reason: error.message,
          leadReturn: undefined,
        });
      }
    }
    const count = (outcome: RowOutcome) => reports.filter((row) => row.outcome === outcome).length;
    const refused = count('refused');
    const summary =
      `${input.file}: ${reports.length} rows; ` +
      (input.dryRun ? `${count('would_record')} would be recorded` : `${count('recorded')} recorded`) +
      `, ${count('already_recorded')} already recorded, ${refused} refused.\n`;
    const text =
      table(
        ['LINE', 'OUTCOME', 'LEAD', 'CREDIT', 'CLAWBACK', 'WHY'],
        reports.map((row) => [
          String(row.line),
          row.outcome,
          row.leadId || '-',
          row.leadReturn ? dollars(row.leadReturn.creditCents) : '-',
          row.leadReturn ? dollars(row.leadReturn.clawbackCents) : '-',
          row.reason || '-',
        ]),
      ) + summary;
    return {
      json: {
        rows: reports.map((row) => ({
          ...row,
          leadReturn:
            row.leadReturn && messageJson(ReturnLeadResponse, { leadReturn: row.leadReturn, alreadyRecorded: false }),
        })),
        recorded: count('recorded'),
        alreadyRecorded: count('already_recorded'),
        wouldRecord: count('would_record'),
        refused,
      },
      text,
      failed: refused > 0,
    };
  },
};

export const leadReturnCommands = [returnLead];
export const returnsCommands = [importReturns];
