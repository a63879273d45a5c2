import type { Db } from '@leadflow/distribution/src/db/database';
import type { BuyerAttemptRow, LeadRow, LedgerEntryRow } from '@leadflow/distribution/src/db/schema';
import type { ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import { durationOfMs } from '@leadflow/service-kit/proto-time';

// The report worked out the slow, plain way from every stored row, lead by lead, to hold the service's
// SQL and quarter-hour buckets against.

export interface Scope {
  fromMs?: number;
  toMs?: number;
  includeTest?: boolean;
}

interface Store {
  leads: LeadRow[];
  attempts: BuyerAttemptRow[];
  ledger: LedgerEntryRow[];
}

export async function readStore(db: Db, scope: Scope): Promise<Store> {
  const leads = (await db.selectFrom('leads').selectAll().execute()).filter(
    (lead) =>
      lead.created_at >= (scope.fromMs ?? 0) &&
      lead.created_at < (scope.toMs || Number.POSITIVE_INFINITY) &&
      (scope.includeTest || lead.is_test === 0),
  );
  const ids = new Set(leads.map((lead) => lead.id));
  const attempts = (await db.selectFrom('buyer_attempts').selectAll().execute()).filter((attempt) =>
    ids.has(attempt.lead_id),
  );
  const ledger = (await db.selectFrom('ledger_entries').selectAll().execute()).filter((entry) =>
    ids.has(entry.lead_id),
  );
  return { leads, attempts, ledger };
}

function percentile(values: number[], percent: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.ceil((percent * sorted.length) / 100) - 1];
}

const sum = (entries: LedgerEntryRow[], type: LedgerEntryRow['entry_type']) =>
  entries.filter((entry) => entry.entry_type === type).reduce((total, entry) => total + entry.amount_cents, 0);
const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** One row from its leads, the leads it sold, the ledger entries and the calls it counts. */
function row(
  key: string,
  name: string,
  leads: LeadRow[],
  sold: LeadRow[],
  ledger: LedgerEntryRow[],
  attempts: BuyerAttemptRow[],
): ReportRow {
  const posts = attempts.filter((attempt) => attempt.kind === 'post');
  const completed = leads.filter((lead) => lead.processing_ms !== null).map((lead) => lead.processing_ms!);
  return {
    key,
    name,
    leads: leads.length,
    sold: sold.length,
    soldRate: share(sold.length, leads.length),
    revenueCents: 0 - sum(ledger, 'buyer_charge'),
    payoutCents: sum(ledger, 'publisher_payout'),
    marginCents: sum(ledger, 'platform_margin'),
    processingTimeP50: completed.length === 0 ? undefined : durationOfMs(percentile(completed, 50)),
    processingTimeP95: completed.length === 0 ? undefined : durationOfMs(percentile(completed, 95)),
    buyerAcceptRate: share(posts.filter((post) => post.outcome === 'accepted').length, posts.length),
    posts: posts.length,
    timeouts: attempts.filter((attempt) => attempt.outcome === 'timeout' || attempt.outcome === 'unknown').length,
    errors: attempts.filter((attempt) => attempt.outcome === 'error').length,
    unknownOutcomes: posts.filter((post) => post.outcome === 'unknown').length,
    ...returnFigures(sold.length, ledger),
  };
}

/** What the returns among the ledger entries moved back, and the net figures after them. */
function returnFigures(sold: number, ledger: LedgerEntryRow[]) {
  const returns = ledger.filter((entry) => entry.entry_type === 'buyer_return_credit').length;
  const returned = {
    revenue: sum(ledger, 'buyer_return_credit'),
    payout: 0 - sum(ledger, 'publisher_clawback'),
    margin: 0 - sum(ledger, 'platform_return'),
  };
  return {
    returns,
    returnRate: share(returns, sold),
    returnedRevenueCents: returned.revenue,
    returnedPayoutCents: returned.payout,
    returnedMarginCents: returned.margin,
    netRevenueCents: 0 - sum(ledger, 'buyer_charge') - returned.revenue,
    netPayoutCents: sum(ledger, 'publisher_payout') - returned.payout,
    netMarginCents: sum(ledger, 'platform_margin') - returned.margin,
  };
}

function leadsRow(store: Store, key: string, name: string, leads: LeadRow[]): ReportRow {
  const ids = new Set(leads.map((lead) => lead.id));
  return row(
    key,
    name,
    leads,
    leads.filter((lead) => lead.status === 'sold'),
    store.ledger.filter((entry) => ids.has(entry.lead_id)),
    store.attempts.filter((attempt) => ids.has(attempt.lead_id) && attempt.kind !== 'skip'),
  );
}

export function expectedTotal(store: Store): ReportRow {
  return leadsRow(store, 'total', '', store.leads);
}

export function expectedByPublisher(store: Store, names: Map<string, string>): ReportRow[] {
  const publishers = [...new Set(store.leads.map((lead) => lead.publisher_id))];
  return publishers
    .map((id) =>
      leadsRow(
        store,
        id,
        names.get(id) ?? '',
        store.leads.filter((lead) => lead.publisher_id === id),
      ),
    )
    .sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
}

/** By buyer: the leads posted to it, the ones sold to it and their ledger entries, its calls. */
export function expectedByBuyer(store: Store, names: Map<string, string>): ReportRow[] {
  const buyers = [
    ...new Set(store.attempts.filter((attempt) => attempt.kind === 'post').map((attempt) => attempt.buyer_id)),
  ];
  return buyers
    .map((id) => {
      const posted = new Set(
        store.attempts
          .filter((attempt) => attempt.buyer_id === id && attempt.kind === 'post')
          .map((attempt) => attempt.lead_id),
      );
      const sold = store.leads.filter((lead) => lead.status === 'sold' && lead.buyer_id === id);
      const soldIds = new Set(sold.map((lead) => lead.id));
      return row(
        id,
        names.get(id) ?? '',
        store.leads.filter((lead) => posted.has(lead.id)),
        sold,
        store.ledger.filter((entry) => soldIds.has(entry.lead_id)),
        store.attempts.filter((attempt) => attempt.buyer_id === id && attempt.kind !== 'skip'),
      );
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
}

/** By the local day or hour of each lead's own created_at. */
export function expectedByTime(store: Store, unit: 'day' | 'hour', timezone: string): ReportRow[] {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  });
  const bucket = (lead: LeadRow) => {
    const part = (type: string) =>
      format.formatToParts(lead.created_at).find((candidate) => candidate.type === type)!.value;
    const day = `${part('year')}-${part('month')}-${part('day')}`;
    return unit === 'day' ? day : `${day}T${part('hour')}`;
  };
  const buckets = [...new Set(store.leads.map(bucket))].sort();
  return buckets.map((key) =>
    leadsRow(
      store,
      key,
      '',
      store.leads.filter((lead) => bucket(lead) === key),
    ),
  );
}

export async function namesOf(db: Db, table: 'publishers' | 'buyers'): Promise<Map<string, string>> {
  return new Map((await db.selectFrom(table).select(['id', 'name']).execute()).map((entry) => [entry.id, entry.name]));
}
