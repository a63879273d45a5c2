import type { LedgerEntryType } from '../db/schema.js';
import { newId } from '../ids.js';
import type { SaleWinner } from './lead-seller.js';

/** One movement of money, in integer cents; rows stay in ledger.repository.ts. */
export interface LedgerEntry {
  id: string;
  leadId: string;
  type: LedgerEntryType;
  /** "buyer:<id>", "publisher:<id>" or "platform". */
  account: string;
  amountCents: number;
  createdAt: number;
}

/**
 * The three entries of a live sale, in integer cents, summing to zero: the
 * buyer is charged (negative), the publisher is paid its payout, the platform
 * keeps the margin. Unique per lead and entry type, so a retried request can
 * never write them twice.
 */
export function saleEntries(lead: { id: string; publisherId: string }, winner: SaleWinner, at: number): LedgerEntry[] {
  const entry = (type: LedgerEntryType, account: string, amountCents: number): LedgerEntry => ({
    id: newId('led', at),
    leadId: lead.id,
    type,
    account,
    amountCents,
    createdAt: at,
  });
  return [
    entry('buyer_charge', `buyer:${winner.buyerId}`, -winner.chargeCents),
    entry('publisher_payout', `publisher:${lead.publisherId}`, winner.payoutCents),
    entry('platform_margin', 'platform', winner.chargeCents - winner.payoutCents),
  ];
}
