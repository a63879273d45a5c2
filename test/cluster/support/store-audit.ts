import type { IntakeReply } from './http.js';
import type { InspectedDatabase } from './mariadb.js';

/** What a publisher was told with a 200, by clickid. */
export type OkAnswers = Map<string, IntakeReply>;

export interface StoreAudit {
  leads: number;
  byStatus: Record<string, number>;
  sales: number;
  ledgerEntries: number;
  /** Leads with more than one sale row, or more than one set of ledger entries: must be 0. */
  soldTwice: number;
  /** Leads answered 200 but missing, or stored with another id or outcome: must be 0. */
  lost: number;
  problems: string[];
}

interface LeadRecord {
  id: string;
  clickid: string;
  status: string;
  buyer_id: string | null;
  payout_cents: number | null;
  is_test: number;
}

interface SaleRecord {
  id: string;
  lead_id: string;
  buyer_id: string;
  charge_cents: number;
  payout_cents: number;
  margin_cents: number;
}

interface LedgerRecord {
  lead_id: string;
  entry_type: string;
  account: string;
  amount_cents: number;
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/**
 * Checks the stored state of the given publishers' leads against what the
 * publishers were told, and against the design's invariants:
 * every 200 is stored with the same lead id and outcome (an 'unconfirmed' lead is
 * answered 'rejected'); no lead is left 'processing'; a sold live lead has exactly
 * one sale and one balanced set of three ledger entries that agree with the sale;
 * a rejected or unconfirmed lead has neither.
 */
export async function auditStore(
  database: InspectedDatabase,
  publisherIds: string[],
  okAnswers: OkAnswers,
): Promise<StoreAudit> {
  const problems: string[] = [];
  const leads = await database.rows<LeadRecord>(
    `SELECT id, clickid, status, buyer_id, payout_cents, is_test FROM leads WHERE publisher_id IN (${placeholders(publisherIds)})`,
    publisherIds,
  );
  const leadIds = leads.map((lead) => lead.id);
  const sales = leadIds.length
    ? await database.rows<SaleRecord>(
        `SELECT id, lead_id, buyer_id, charge_cents, payout_cents, margin_cents FROM sales WHERE publisher_id IN (${placeholders(publisherIds)})`,
        publisherIds,
      )
    : [];
  const ledger = leadIds.length
    ? await database.rows<LedgerRecord>(
        `SELECT lead_id, entry_type, account, amount_cents FROM ledger_entries WHERE lead_id IN (SELECT id FROM leads WHERE publisher_id IN (${placeholders(publisherIds)}))`,
        publisherIds,
      )
    : [];

  const byClickid = new Map(leads.map((lead) => [lead.clickid, lead]));
  const salesOf = new Map<string, SaleRecord[]>();
  for (const sale of sales) salesOf.set(sale.lead_id, [...(salesOf.get(sale.lead_id) ?? []), sale]);
  const ledgerOf = new Map<string, LedgerRecord[]>();
  for (const entry of ledger) ledgerOf.set(entry.lead_id, [...(ledgerOf.get(entry.lead_id) ?? []), entry]);

  let lost = 0;
  for (const [clickid, reply] of okAnswers) {
    const lead = byClickid.get(clickid);
    const told = reply.body as { leadId?: string; status?: string; buyerId?: string; price?: number };
    if (!lead) {
      lost += 1;
      problems.push(`${clickid}: answered 200 (${told.leadId}) but no lead is stored`);
      continue;
    }
    const wrong: string[] = [];
    if (lead.id !== told.leadId) wrong.push(`stored as ${lead.id}, answered ${told.leadId}`);
    // An unconfirmed lead (a post whose answer never came) is answered as not sold until it is resolved.
    const answeredAs = lead.status === 'unconfirmed' ? 'rejected' : lead.status;
    if (answeredAs !== told.status) wrong.push(`stored ${lead.status}, answered ${told.status}`);
    if (told.status === 'sold' && lead.buyer_id !== told.buyerId)
      wrong.push(`stored buyer ${lead.buyer_id}, answered ${told.buyerId}`);
    if (told.status === 'sold' && lead.payout_cents !== Math.round((told.price ?? NaN) * 100)) {
      wrong.push(`stored payout ${lead.payout_cents}, answered price ${told.price}`);
    }
    if (wrong.length > 0) {
      lost += 1;
      problems.push(`${clickid}: ${wrong.join('; ')}`);
    }
  }

  let soldTwice = 0;
  for (const lead of leads) {
    const leadSales = salesOf.get(lead.id) ?? [];
    const entries = ledgerOf.get(lead.id) ?? [];
    const types = entries.map((entry) => entry.entry_type).sort();
    if (leadSales.length > 1 || entries.length > 3) soldTwice += 1;
    if (lead.status === 'processing') {
      problems.push(`${lead.clickid} (${lead.id}): left 'processing' (half-written)`);
      if (leadSales.length > 0 || entries.length > 0)
        problems.push(
          `${lead.id}: 'processing' yet has ${leadSales.length} sale(s) and ${entries.length} ledger entries`,
        );
      continue;
    }
    if (lead.status !== 'sold' || lead.is_test === 1) {
      if (leadSales.length > 0 || entries.length > 0)
        problems.push(
          `${lead.id}: ${lead.status} yet has ${leadSales.length} sale(s) and ${entries.length} ledger entries`,
        );
      continue;
    }
    if (leadSales.length !== 1) {
      problems.push(`${lead.id}: sold with ${leadSales.length} sale rows`);
      continue;
    }
    const sale = leadSales[0]!;
    if (sale.buyer_id !== lead.buyer_id)
      problems.push(`${lead.id}: sale to ${sale.buyer_id}, lead says ${lead.buyer_id}`);
    if (sale.payout_cents !== lead.payout_cents)
      problems.push(`${lead.id}: sale payout ${sale.payout_cents}, lead says ${lead.payout_cents}`);
    if (JSON.stringify(types) !== JSON.stringify(['buyer_charge', 'platform_margin', 'publisher_payout'])) {
      problems.push(`${lead.id}: ledger entries ${JSON.stringify(types)}`);
      continue;
    }
    const amount = (type: string) => entries.find((entry) => entry.entry_type === type)!.amount_cents;
    if (
      amount('buyer_charge') !== -sale.charge_cents ||
      amount('publisher_payout') !== sale.payout_cents ||
      amount('platform_margin') !== sale.margin_cents
    ) {
      problems.push(`${lead.id}: ledger ${JSON.stringify(entries)} does not match sale ${JSON.stringify(sale)}`);
    }
    if (entries.reduce((sum, entry) => sum + entry.amount_cents, 0) !== 0)
      problems.push(`${lead.id}: ledger entries do not sum to zero`);
  }
  const storedIds = new Set(leadIds);
  for (const sale of sales)
    if (!storedIds.has(sale.lead_id)) problems.push(`sale ${sale.id} of an unknown lead ${sale.lead_id}`);

  const byStatus: Record<string, number> = {};
  for (const lead of leads) byStatus[lead.status] = (byStatus[lead.status] ?? 0) + 1;
  return {
    leads: leads.length,
    byStatus,
    sales: sales.length,
    ledgerEntries: ledger.length,
    soldTwice,
    lost,
    problems,
  };
}
