import type { Acceptance } from './counting-buyer.js';
import type { InspectedDatabase } from './mariadb.js';

/** What the buyers hold, checked against what leadflow recorded. */
export interface BuyerAudit {
  acceptances: number;
  /** Leads some buyer accepted more than once, or more than one buyer accepted: must be none. */
  acceptedTwice: { leadId: string; by: string[] }[];
  /** Acceptances whose lead is sold to that buyer (one sale). */
  inSale: number;
  /** Acceptances whose lead is 'unconfirmed' with an open post to that buyer. */
  inUnconfirmed: number;
  problems: string[];
}

interface LeadState {
  id: string;
  status: string;
  buyer_id: string | null;
}

interface PostState {
  id: string;
  lead_id: string;
  buyer_id: string;
  state: string;
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/** Rows of `sql` whose last `IN (...)` is filled with `ids`, a few hundred at a time. */
async function rowsFor<T>(database: InspectedDatabase, sql: (list: string) => string, ids: string[]): Promise<T[]> {
  const rows: T[] = [];
  for (let start = 0; start < ids.length; start += 500) {
    const slice = ids.slice(start, start + 500);
    rows.push(...(await database.rows<T>(sql(placeholders(slice)), slice)));
  }
  return rows;
}

/**
 * The buyer-side audit of the sale protocol: no lead accepted twice across all
 * buyers; every acceptance appears in exactly one sale to that buyer or in an
 * 'unconfirmed' lead whose open post (pending or unknown) is to that buyer;
 * every sale of the given leads was accepted by its buyer; an attempt id a buyer
 * was sent is that lead's post to that buyer. `buyerIdOf`: the buyer id of an
 * endpoint path of the counting buyer. `leadIds`: every lead of the run, so that
 * a sale no buyer accepted shows too.
 */
export async function auditAtBuyers(
  database: InspectedDatabase,
  acceptances: readonly Acceptance[],
  buyerIdOf: (path: string) => string,
  leadIds: readonly string[],
): Promise<BuyerAudit> {
  const problems: string[] = [];
  const byLead = new Map<string, Acceptance[]>();
  for (const acceptance of acceptances)
    byLead.set(acceptance.leadId, [...(byLead.get(acceptance.leadId) ?? []), acceptance]);
  const acceptedTwice = [...byLead.entries()]
    .filter(([, taken]) => taken.length > 1)
    .map(([leadId, taken]) => ({ leadId, by: taken.map((acceptance) => acceptance.path) }));

  const ids = [...new Set([...leadIds, ...byLead.keys()])];
  const leads = new Map(
    (
      await rowsFor<LeadState>(database, (list) => `SELECT id, status, buyer_id FROM leads WHERE id IN (${list})`, ids)
    ).map((lead) => [lead.id, lead]),
  );
  const sales = await rowsFor<{ lead_id: string; buyer_id: string }>(
    database,
    (list) => `SELECT lead_id, buyer_id FROM sales WHERE lead_id IN (${list})`,
    ids,
  );
  const salesOf = new Map<string, string[]>();
  for (const sale of sales) salesOf.set(sale.lead_id, [...(salesOf.get(sale.lead_id) ?? []), sale.buyer_id]);
  // Post intents exist only where the sale protocol does: read them only when an answer needs them.
  const needPosts =
    [...leads.values()].some((lead) => lead.status === 'unconfirmed') ||
    acceptances.some((acceptance) => acceptance.attemptId !== undefined);
  const posts = needPosts
    ? await rowsFor<PostState>(
        database,
        (list) => `SELECT id, lead_id, buyer_id, state FROM lead_posts WHERE lead_id IN (${list})`,
        ids,
      )
    : [];
  const postOf = (leadId: string, buyerId: string) =>
    posts.find((post) => post.lead_id === leadId && post.buyer_id === buyerId);

  let inSale = 0;
  let inUnconfirmed = 0;
  for (const acceptance of acceptances) {
    const buyerId = buyerIdOf(acceptance.path);
    const what = `${acceptance.leadId} accepted by ${acceptance.path} (${buyerId})`;
    const lead = leads.get(acceptance.leadId);
    if (!lead) {
      problems.push(`${what}: no such lead is stored`);
      continue;
    }
    const leadSales = salesOf.get(lead.id) ?? [];
    const post = postOf(lead.id, buyerId);
    if (lead.status === 'sold' && leadSales.length === 1 && leadSales[0] === buyerId && lead.buyer_id === buyerId)
      inSale += 1;
    else if (
      lead.status === 'unconfirmed' &&
      leadSales.length === 0 &&
      post &&
      ['pending', 'unknown'].includes(post.state)
    )
      inUnconfirmed += 1;
    else
      problems.push(
        `${what}: the lead is '${lead.status}' (buyer ${lead.buyer_id ?? '-'}), sales to ${JSON.stringify(leadSales)}, post ${JSON.stringify(post ?? null)}`,
      );
    if (acceptance.attemptId !== undefined && acceptance.attemptId !== post?.id) {
      problems.push(`${what}: sent attempt id ${acceptance.attemptId}, its post intent is ${post?.id ?? 'missing'}`);
    }
  }
  for (const sale of sales) {
    const accepted = (byLead.get(sale.lead_id) ?? []).some(
      (acceptance) => buyerIdOf(acceptance.path) === sale.buyer_id,
    );
    if (!accepted) problems.push(`${sale.lead_id}: sold to ${sale.buyer_id}, which never accepted it`);
  }
  return { acceptances: acceptances.length, acceptedTwice, inSale, inUnconfirmed, problems };
}
