import { type BuyerSummary, ResolveLeadResponse } from '@leadflow/proto/leadflow/admin/v1/admin';
import { LeadRecord, ListLeadsResponse, UnconfirmedLead } from '@leadflow/proto/leadflow/admin/v1/leads';
import { leadStatuses } from '@leadflow/service-kit/admin-enums';
import type { CommandArgs } from '../args.js';
import { CliFailure, reworded, UsageError } from '../errors.js';
import { dollars } from '../format.js';
import { messageJson } from '../json-output.js';
import { buyerNames, leadsTable, leadText, unconfirmedTable } from '../lead-text.js';
import type { ServiceCalls } from '../service-calls.js';
import type { Command } from './command.js';
import { leadReturnCommands } from './returns.js';

const show: Command<{ leadId: string }> = {
  group: 'lead',
  name: 'show',
  synopsis: 'LEAD_ID',
  summary: 'show a stored lead, its outcome and audit trail of pings, posts and skips (sensitive fields masked)',
  details: [
    'The service masks SSN, date of birth, bank and license numbers before they leave it.',
    'Every buyer considered is listed in order: each ping and post with its latency, HTTP status,',
    "outcome, bid or price in dollars and the buyer's reference; each buyer skipped with the reason.",
    "A held lead's post, once settled, shows the settlement as its outcome and RESOLVED BY who settled it:",
    "operator, status_lookup, late_answer or settle_after (timeout_policy: the buyer's onTimeout declined it).",
    'With --json, prints the lead as the service returns it (proto3 JSON), amounts in integer cents.',
  ],
  options: {},
  positionals: ['LEAD_ID'],
  parse: (args) => ({ leadId: args.positionals[0] }),
  async run(calls, input) {
    // Buyers by name for people; the JSON keeps the ids.
    const [lead, buyers] = await Promise.all([calls.getLead(input.leadId), calls.listBuyers()]);
    return { json: messageJson(LeadRecord, lead), text: leadText(lead, buyerNames(buyers)) };
  },
};

const find: Command<{ clickid: string; publisherId: string }> = {
  group: 'lead',
  name: 'find',
  synopsis: '--clickid CLICKID [--publisher PUBLISHER_ID]',
  summary: "find the lead a publisher sent with a clickid, as a publisher's ticket quotes it, and show it",
  details: [
    '--clickid CLICKID        the clickid the publisher sent',
    "--publisher ID           the publisher's id; needed only when several publishers used the clickid",
    'Prints the lead as `leadflow lead show` does; with --json, as the service returns it.',
  ],
  options: { clickid: { type: 'string' }, publisher: { type: 'string' } },
  positionals: [],
  parse: (args) => ({ clickid: args.requiredString('clickid'), publisherId: args.string('publisher') ?? '' }),
  async run(calls, input) {
    const [lead, buyers] = await Promise.all([calls.findLead(input.clickid, input.publisherId), calls.listBuyers()]);
    return { json: messageJson(LeadRecord, lead), text: leadText(lead, buyerNames(buyers)) };
  },
};

const LEAD_STATUSES = leadStatuses.names;
const DEFAULT_LIST_LIMIT = 50;

type ListInput =
  | { unconfirmed: true; limit: number }
  | {
      unconfirmed: false;
      limit: number;
      pageToken: string;
      status: string | undefined;
      publisherId: string;
      /** An id or a name. */
      buyer: string;
      from: Date | undefined;
      to: Date | undefined;
    };

/** A day (YYYY-MM-DD, from its start in UTC) or an RFC 3339 time with its offset. */
function time(args: CommandArgs, option: 'from' | 'to'): Date | undefined {
  const raw = args.string(option);
  if (raw === undefined) return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(raw)
    ? Date.parse(`${raw}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:\d{2})$/i.test(raw)
      ? Date.parse(raw)
      : NaN;
  if (Number.isNaN(parsed))
    throw new UsageError(`--${option} must be a day such as 2026-11-01 or a time such as 2026-11-01T14:00:00Z`);
  return new Date(parsed);
}

const FILTERS = ['status', 'publisher', 'buyer', 'from', 'to', 'page-token'] as const;

function parseList(args: CommandArgs): ListInput {
  const limit = args.wholeNumber('limit', 1) ?? (args.flag('unconfirmed') ? 100 : DEFAULT_LIST_LIMIT);
  if (args.flag('unconfirmed')) {
    const other = FILTERS.find((option) => args.string(option) !== undefined);
    if (other) throw new UsageError(`--${other} does not go with --unconfirmed`);
    return { unconfirmed: true, limit };
  }
  const status = args.string('status');
  if (status !== undefined && !LEAD_STATUSES.includes(status))
    throw new UsageError(`--status must be one of ${LEAD_STATUSES.join(', ')}`);
  const from = time(args, 'from');
  const to = time(args, 'to');
  if (from && to && from >= to) throw new UsageError('--from must be before --to');
  return {
    unconfirmed: false,
    limit,
    pageToken: args.string('page-token') ?? '',
    status,
    publisherId: args.string('publisher') ?? '',
    buyer: args.string('buyer') ?? '',
    from,
    to,
  };
}

/** The id of the buyer a filter names by id or name; a name no buyer has is a mistake, not a filter matching nothing. */
function buyerIdOf(buyers: BuyerSummary[], buyer: string): string {
  if (buyer === '') return '';
  const found = buyers.find((candidate) => candidate.id === buyer || candidate.name === buyer);
  if (!found) throw new CliFailure(`not found: no buyer has the id or name "${buyer}"`);
  return found.id;
}

async function checkPublisher(calls: ServiceCalls, publisherId: string): Promise<void> {
  if (publisherId === '') return;
  const publishers = await calls.listPublishers();
  if (!publishers.some((publisher) => publisher.id === publisherId))
    throw new CliFailure(`not found: no publisher has the id "${publisherId}"`);
}

async function listLeads(calls: ServiceCalls, input: Extract<ListInput, { unconfirmed: false }>) {
  const [buyers] = await Promise.all([calls.listBuyers(), checkPublisher(calls, input.publisherId)]);
  const buyerId = buyerIdOf(buyers, input.buyer);
  const page = await calls.listLeads({
    pageSize: input.limit,
    pageToken: input.pageToken,
    status: leadStatuses.valueOf(input.status ?? ''),
    publisherId: input.publisherId,
    buyerId,
    startTime: input.from,
    endTime: input.to,
  });
  const more = page.nextPageToken ? `\nMore leads: add --page-token ${page.nextPageToken}\n` : '';
  return { json: messageJson(ListLeadsResponse, page), text: leadsTable(page.leads, buyerNames(buyers)) + more };
}

const list: Command<ListInput> = {
  group: 'lead',
  name: 'list',
  synopsis:
    '[--status S] [--publisher ID] [--buyer B] [--from T] [--to T] [--limit N] [--page-token T] | --unconfirmed [--limit N]',
  summary: "list leads, newest first, by status, publisher, buyer and time; or those awaiting a buyer's confirmation",
  details: [
    `--status S      one of ${LEAD_STATUSES.join(', ')}`,
    "--publisher ID  one publisher's leads (an id no publisher has: not found, exit 1)",
    '--buyer B       the leads sold to a buyer, by id or name (one no buyer has: not found, exit 1)',
    '--from T        created at or after T: a day (2026-11-01, from its start in UTC) or a time (2026-11-01T14:00:00Z)',
    '--to T          created before T, written the same way',
    `--limit N       at most N leads (default ${DEFAULT_LIST_LIMIT}; 100 with --unconfirmed)`,
    '--page-token T  the next page: the token the previous page printed (with the same filters)',
    '--unconfirmed   the leads held for a buyer that may have them, oldest first; none of them goes to another',
    "                buyer until it is resolved (leadflow lead resolve), by an operator or the buyer's status lookup.",
    '                ATTEMPT is the attempt id the buyer may have been sent (mapping field attemptId): ask the buyer about it.',
    'Personal fields are masked; with --json, prints {"leads": [...], "nextPageToken": ...} as the service returns it.',
  ],
  options: {
    unconfirmed: { type: 'boolean' },
    limit: { type: 'string' },
    status: { type: 'string' },
    publisher: { type: 'string' },
    buyer: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    'page-token': { type: 'string' },
  },
  positionals: [],
  parse: parseList,
  async run(calls, input) {
    if (!input.unconfirmed) return listLeads(calls, input);
    const [leads, buyers] = await Promise.all([calls.listUnconfirmedLeads(input.limit), calls.listBuyers()]);
    return {
      json: { leads: leads.map((lead) => messageJson(UnconfirmedLead, lead)) },
      text: unconfirmedTable(leads, buyerNames(buyers)),
    };
  },
};

const resolve: Command<{ leadId: string; sold: boolean; chargeCents: number }> = {
  group: 'lead',
  name: 'resolve',
  synopsis: 'LEAD_ID --sold [--price DOLLARS] | --not-sold',
  summary: 'settle an unconfirmed lead with what its buyer says: sold to it, or not',
  details: [
    '--sold           the buyer holds the lead: the sale, its ledger entries and the reports follow',
    '--price DOLLARS  with --sold, what the buyer pays, for a buyer that names its price only in its answer;',
    "                 refused for a lead whose post carried the buyer's price (fixed, rules or a ping's bid)",
    "--not-sold       the buyer does not hold it: the lead is rejected and the buyer's caps are given back",
    'With --json, prints {"leadId", "status" (LEAD_STATUS_SOLD or LEAD_STATUS_REJECTED), "buyerId", "payoutCents"}.',
  ],
  options: { sold: { type: 'boolean' }, 'not-sold': { type: 'boolean' }, price: { type: 'string' } },
  positionals: ['LEAD_ID'],
  parse(args) {
    const sold = args.flag('sold');
    if (sold === args.flag('not-sold')) throw new UsageError('give exactly one of --sold and --not-sold');
    const chargeCents = args.cents('price');
    if (chargeCents !== undefined && !sold) throw new UsageError('--price goes with --sold');
    return { leadId: args.positionals[0]!, sold, chargeCents: chargeCents ?? 0 };
  },
  async run(calls, input) {
    const resolved = await calls.resolveLead(input).catch((error: unknown) => {
      throw reworded(
        error,
        'PRICE_ALREADY_SET',
        ({ chargeCents }) =>
          `--price is only for a buyer that names its price in its answer: this lead's post carried the buyer's price, ${dollars(Number(chargeCents))}; resolve it without --price`,
      );
    });
    const text =
      leadStatuses.nameOf(resolved.status) === 'sold'
        ? `Lead ${resolved.leadId} is sold to ${resolved.buyerId}; the publisher's payout is ${dollars(resolved.payoutCents)}.\n`
        : `Lead ${resolved.leadId} is not sold: rejected, and ${resolved.buyerId}'s caps are given back.\n`;
    return { json: messageJson(ResolveLeadResponse, resolved), text };
  },
};

export const leadCommands = [show, find, list, resolve, ...leadReturnCommands];
