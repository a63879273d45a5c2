import type { BuyerSummary } from '../../../proto/generated/leadflow/admin/v1/admin.js';
import type { BuyerAttempt, LeadRecord } from '../../../proto/generated/leadflow/distribution/v1/distribution.js';
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

export const leadCommands = [show];
