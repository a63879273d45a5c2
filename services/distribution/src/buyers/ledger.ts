import type { SaleWinner } from './lead-seller.js';
import type { LedgerEntryRow } from '../db/schema.js';
import { newId } from '../ids.js';

/**
 * The three entries of a live sale, in integer cents, summing to zero: the
 * buyer is charged (negative), the publisher is paid its payout, the platform
 * keeps the margin. Unique per lead and entry type, so a retried request can
 * never write them twice.
 */
export function saleEntries(
  lead: { id: string; publisherId: string },
  winner: SaleWinner,
  at: number,
): LedgerEntryRow[] {
  const entry = (entryType: LedgerEntryRow['entry_type'], account: string, amountCents: number): LedgerEntryRow => ({
    id: newId('led', at),
    lead_id: lead.id,
    entry_type: entryType,
    account,
    amount_cents: amountCents,
    created_at: at,
  });
  return [
    entry('buyer_charge', `buyer:${winner.buyerId}`, -winner.chargeCents),
    entry('publisher_payout', `publisher:${lead.publisherId}`, winner.payoutCents),
    entry('platform_margin', 'platform', winner.chargeCents - winner.payoutCents),
  ];
}
