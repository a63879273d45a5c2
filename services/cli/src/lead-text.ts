import type { BuyerSummary } from '@leadflow/proto/leadflow/admin/v1/admin';
import type { BuyerAttempt, LeadRecord, LeadReturn, UnconfirmedLead } from '@leadflow/proto/leadflow/admin/v1/leads';
import { attemptKinds, attemptOutcomes, leadStatuses } from '@leadflow/service-kit/admin-enums';
import { msOfDuration } from '@leadflow/service-kit/proto-time';
import { dollars, fields, table, timestamp } from './format.js';

/** Buyers' names by id, for people; an unknown id stays as it is. */
export function buyerNames(buyers: BuyerSummary[]): (id: string) => string {
  const names = new Map(buyers.map((buyer) => [buyer.id, buyer.name]));
  return (id) => names.get(id) ?? id;
}

function section(title: string, entries: Record<string, string>): string {
  const rows = Object.entries(entries);
  return rows.length === 0 ? `\n${title}: (none)\n` : `\n${title}:\n${fields(rows, '  ')}`;
}

/** Cents as dollars; zero, which the service sends for "none", as "-". */
function amount(cents: number): string {
  return cents === 0 ? '-' : dollars(cents);
}

const milliseconds = (ms: number) => `${ms.toFixed(1)} ms`;

function attemptTable(attempts: BuyerAttempt[], buyerName: (id: string) => string): string {
  if (attempts.length === 0) return '\nBuyer attempts: (none)\n';
  return (
    '\nBuyer attempts:\n' +
    table(
      ['KIND', 'BUYER', 'STARTED', 'LATENCY', 'HTTP', 'OUTCOME', 'BID', 'PRICE', 'REFERENCE', 'REASON', 'RESOLVED BY'],
      attempts.map((attempt) => {
        const kind = attemptKinds.nameOf(attempt.kind);
        // A skip made no call: only its buyer, time and reason say anything.
        const called = kind !== 'skip';
        return [
          kind ?? '-',
          buyerName(attempt.buyerId),
          timestamp(attempt.startTime),
          called ? milliseconds(msOfDuration(attempt.duration)) : '-',
          attempt.httpStatus === 0 ? '-' : String(attempt.httpStatus),
          attemptOutcomes.nameOf(attempt.outcome) ?? '-',
          amount(attempt.bidCents),
          amount(attempt.priceCents),
          attempt.reference || '-',
          attempt.reason || '-',
          attempt.resolvedBy || '-',
        ];
      }),
    )
  );
}

/** One lead, its fields and its audit trail of pings, posts and skips. */
/** The buyer's return of the lead in one line: when, why and the money moved back. */
function returnLine(leadReturn: LeadReturn | undefined): string {
  if (!leadReturn) return '-';
  const note = leadReturn.note ? ` ("${leadReturn.note}")` : '';
  return (
    `${timestamp(leadReturn.returnTime)} for ${leadReturn.reason}${note}: buyer credited ` +
    `${dollars(leadReturn.creditCents)}, payout clawed back ${dollars(leadReturn.clawbackCents)}, ` +
    `network ${dollars(leadReturn.marginCents)} (${leadReturn.returnId})`
  );
}

export function leadText(lead: LeadRecord, buyerName: (id: string) => string): string {
  return (
    fields([
      ['lead', lead.leadId],
      ['publisher', lead.publisherId],
      ['clickid', lead.clickid],
      ['status', leadStatuses.nameOf(lead.status) ?? '-'],
      ['test', lead.test ? 'yes' : 'no'],
      ['created', timestamp(lead.createTime)],
      ['completed', timestamp(lead.completeTime)],
      ['price floor', dollars(lead.priceFloorCents)],
      ['buyer', lead.buyerId ? `${buyerName(lead.buyerId)} (${lead.buyerId})` : '-'],
      ['payout', lead.buyerId ? dollars(lead.payoutCents) : '-'],
      ['reason', lead.reason || '-'],
      ['redirect URL', lead.redirectUrl || '-'],
      ['processing', lead.processingTime ? milliseconds(msOfDuration(lead.processingTime)) : '-'],
      ['returned', returnLine(lead.leadReturn)],
    ]) +
    section('Fields', lead.fields) +
    section('Tracking', lead.tracking) +
    attemptTable(lead.attempts, buyerName)
  );
}

/** A page of leads, one line each, newest first. */
export function leadsTable(leads: LeadRecord[], buyerName: (id: string) => string): string {
  if (leads.length === 0) return 'No leads.\n';
  return table(
    ['LEAD', 'CREATED', 'PUBLISHER', 'CLICKID', 'STATUS', 'BUYER', 'PAYOUT', 'TEST'],
    leads.map((lead) => [
      lead.leadId,
      timestamp(lead.createTime),
      lead.publisherId,
      lead.clickid,
      leadStatuses.nameOf(lead.status) ?? '-',
      lead.buyerId ? buyerName(lead.buyerId) : '-',
      lead.buyerId ? dollars(lead.payoutCents) : '-',
      lead.test ? 'yes' : 'no',
    ]),
  );
}

/** `now`: epoch ms the ages are counted to. */
export function unconfirmedTable(
  leads: UnconfirmedLead[],
  buyerName: (id: string) => string,
  now = Date.now(),
): string {
  if (leads.length === 0) return 'No unconfirmed leads.\n';
  return table(
    ['LEAD', 'PUBLISHER', 'CLICKID', 'BUYER', 'POSTED', 'AGE', 'ATTEMPT', 'TEST'],
    leads.map((lead) => [
      lead.leadId,
      lead.publisherId,
      lead.clickid,
      buyerName(lead.buyerId),
      timestamp(lead.postTime),
      lead.postTime ? heldFor(now - lead.postTime.getTime()) : '-',
      lead.postId,
      lead.test ? 'yes' : 'no',
    ]),
  );
}

/** How long a lead has been held, in its two largest units: `45s`, `12m 5s`, `3h 20m`, `2d 4h`. */
export function heldFor(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const parts: [number, string][] = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor(seconds / 3600) % 24, 'h'],
    [Math.floor(seconds / 60) % 60, 'm'],
    [seconds % 60, 's'],
  ];
  const first = parts.findIndex(([value]) => value > 0);
  if (first === -1) return '0s';
  return parts
    .slice(first, first + 2)
    .filter(([value]) => value > 0)
    .map(([value, unit]) => `${value}${unit}`)
    .join(' ');
}
