import type { BuyerAttempt, LeadRecord } from '../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { dollars, fields, table, timestamp } from '../format.js';
import type { Command } from './command.js';

function section(title: string, entries: Record<string, string>): string {
  const rows = Object.entries(entries);
  return rows.length === 0 ? `\n${title}: (none)\n` : `\n${title}:\n${fields(rows, '  ')}`;
}

function attemptTable(attempts: BuyerAttempt[]): string {
  if (attempts.length === 0) return '\nBuyer attempts: (none)\n';
  return (
    '\nBuyer attempts:\n' +
    table(
      ['BUYER', 'STARTED', 'DURATION', 'OUTCOME', 'HTTP', 'REASON'],
      attempts.map((attempt) => [
        attempt.buyerId,
        timestamp(attempt.startedAtMs),
        `${attempt.durationMs.toFixed(1)} ms`,
        attempt.outcome,
        attempt.httpStatus === 0 ? '-' : String(attempt.httpStatus),
        attempt.reason || '-',
      ]),
    )
  );
}

function leadText(lead: LeadRecord): string {
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
      ['buyer', lead.buyerId || '-'],
      ['payout', lead.buyerId ? dollars(lead.payoutCents) : '-'],
      ['reason', lead.reason || '-'],
      ['redirect URL', lead.redirectUrl || '-'],
      ['processing', `${lead.processingMs.toFixed(1)} ms`],
    ]) +
    section('Fields', lead.fields) +
    section('Tracking', lead.tracking) +
    attemptTable(lead.attempts)
  );
}

const show: Command<{ leadId: string }> = {
  group: 'lead',
  name: 'show',
  synopsis: 'LEAD_ID',
  summary: 'show a stored lead, its outcome and buyer attempts (sensitive fields masked)',
  details: ['The service masks SSN, date of birth, bank and license numbers before they leave it.'],
  options: {},
  positionals: ['LEAD_ID'],
  parse: (args) => ({ leadId: args.positionals[0] }),
  async run(calls, input) {
    const lead = await calls.getLead(input.leadId);
    return { json: lead, text: leadText(lead) };
  },
};

export const leadCommands = [show];
