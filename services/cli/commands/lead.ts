import type { BuyerSummary, UnconfirmedLead } from '../../../proto/generated/leadflow/admin/v1/admin.js';
import type { BuyerAttempt, LeadRecord } from '../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { UsageError } from '../errors.js';
import { dollars, fields, table, timestamp } from '../format.js';
import type { Command } from './command.js';

function section(title: string, entries: Record<string, string>): string {
  const rows = Object.entries(entries);
  return rows.length === 0 ? `\n${title}: (none)\n` : `\n${title}:\n${fields(rows, '  ')}`;
}

/** Cents as dollars; zero, which the service sends for "none", as "-". */
function amount(cents: number): string {
  return cents === 0 ? '-' : dollars(cents);
}

function attemptTable(attempts: BuyerAttempt[], buyerName: (id: string) => string): string {
  if (attempts.length === 0) return '\nBuyer attempts: (none)\n';
  return (
    '\nBuyer attempts:\n' +
    table(
      ['KIND', 'BUYER', 'STARTED', 'LATENCY', 'HTTP', 'OUTCOME', 'BID', 'PRICE', 'REFERENCE', 'REASON'],
      attempts.map((attempt) => {
        // A skip made no call: only its buyer, time and reason say anything.
        const called = attempt.kind !== 'skip';
        return [
          attempt.kind || '-',
          buyerName(attempt.buyerId),
          timestamp(attempt.startedAtMs),
          called ? `${attempt.durationMs.toFixed(1)} ms` : '-',
          attempt.httpStatus === 0 ? '-' : String(attempt.httpStatus),
          attempt.outcome,
          amount(attempt.bidCents),
          amount(attempt.priceCents),
          attempt.reference || '-',
          attempt.reason || '-',
        ];
      }),
    )
  );
}

function leadText(lead: LeadRecord, buyers: BuyerSummary[]): string {
  const names = new Map(buyers.map((buyer) => [buyer.id, buyer.name]));
  const buyerName = (id: string) => names.get(id) ?? id;
  return (
    fields([
      ['lead', lead.leadId],
      ['publisher', lead.publisherId],
      ['clickid', lead.clickid],
      ['status', lead.status],
      ['test', lead.test ? 'yes' : 'no'],
      ['created', timestamp(lead.createdAtMs)],
      ['completed', timestamp(lead.completedAtMs)],
      ['price floor', dollars(lead.priceFloorCents)],
      ['buyer', lead.buyerId ? `${buyerName(lead.buyerId)} (${lead.buyerId})` : '-'],
      ['payout', lead.buyerId ? dollars(lead.payoutCents) : '-'],
      ['reason', lead.reason || '-'],
      ['redirect URL', lead.redirectUrl || '-'],
      ['processing', `${lead.processingMs.toFixed(1)} ms`],
    ]) +
    section('Fields', lead.fields) +
    section('Tracking', lead.tracking) +
    attemptTable(lead.attempts, buyerName)
  );
}

const show: Command<{ leadId: string }> = {
  group: 'lead',
  name: 'show',
  synopsis: 'LEAD_ID',
  summary: 'show a stored lead, its outcome and audit trail of pings, posts and skips (sensitive fields masked)',
  details: [
    'The service masks SSN, date of birth, bank and license numbers before they leave it.',
    'Every buyer considered is listed in order: each ping and post with its latency, HTTP status,',
    "outcome, bid or price in dollars and the buyer's reference; each buyer skipped with the reason.",
    'With --json, prints the lead as the service returns it, amounts in integer cents.',
  ],
  options: {},
  positionals: ['LEAD_ID'],
  parse: (args) => ({ leadId: args.positionals[0] }),
  async run(calls, input) {
    // Buyers by name for people; the JSON keeps the ids.
    const [lead, buyers] = await Promise.all([calls.getLead(input.leadId), calls.listBuyers()]);
    return { json: lead, text: leadText(lead, buyers) };
  },
};

function unconfirmedText(leads: UnconfirmedLead[], buyers: BuyerSummary[]): string {
  if (leads.length === 0) return 'No unconfirmed leads.\n';
  const names = new Map(buyers.map((buyer) => [buyer.id, buyer.name]));
  return table(
    ['LEAD', 'PUBLISHER', 'CLICKID', 'BUYER', 'POSTED', 'ATTEMPT', 'TEST'],
    leads.map((lead) => [
      lead.leadId,
      lead.publisherId,
      lead.clickid,
      names.get(lead.buyerId) ?? lead.buyerId,
      timestamp(lead.postedAtMs),
      lead.postId,
      lead.test ? 'yes' : 'no',
    ]),
  );
}

const list: Command<{ limit: number }> = {
  group: 'lead',
  name: 'list',
  synopsis: '--unconfirmed [--limit N]',
  summary: "list the leads waiting for a buyer's confirmation (a post whose answer never came), oldest first",
  details: [
    '--unconfirmed   the leads held for a buyer that may have them; none of them goes to another buyer',
    "                until it is resolved (leadflow lead resolve), by an operator or the buyer's status lookup",
    '--limit N       at most N leads (default 100)',
    'ATTEMPT is the attempt id the buyer may have been sent (mapping field attemptId): ask the buyer about it.',
  ],
  options: { unconfirmed: { type: 'boolean' }, limit: { type: 'string' } },
  positionals: [],
  parse(args) {
    if (!args.flag('unconfirmed')) throw new UsageError('--unconfirmed is required: it is the one listing there is');
    return { limit: args.wholeNumber('limit', 1) ?? 100 };
  },
  async run(calls, input) {
    const [leads, buyers] = await Promise.all([calls.listUnconfirmedLeads(input.limit), calls.listBuyers()]);
    return { json: { leads }, text: unconfirmedText(leads, buyers) };
  },
};

const resolve: Command<{ leadId: string; sold: boolean; chargeCents: number }> = {
  group: 'lead',
  name: 'resolve',
  synopsis: 'LEAD_ID --sold [--price DOLLARS] | --not-sold',
  summary: 'settle an unconfirmed lead with what its buyer says: sold to it, or not',
  details: [
    '--sold           the buyer holds the lead: the sale, its ledger entries and the reports follow',
    '--price DOLLARS  with --sold, what the buyer pays, for a buyer that names its price only in its answer',
    "--not-sold       the buyer does not hold it: the lead is rejected and the buyer's caps are given back",
    'With --json, prints {"leadId", "status", "buyerId", "payoutCents"}.',
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
    const resolved = await calls.resolveLead(input);
    const text =
      resolved.status === 'sold'
        ? `Lead ${resolved.leadId} is sold to ${resolved.buyerId}; the publisher's payout is ${dollars(resolved.payoutCents)}.\n`
        : `Lead ${resolved.leadId} is not sold: rejected, and ${resolved.buyerId}'s caps are given back.\n`;
    return { json: resolved, text };
  },
};

export const leadCommands = [show, list, resolve];
