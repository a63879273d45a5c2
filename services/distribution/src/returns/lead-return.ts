import { zonedClock } from '@leadflow/core/zoned-time';
import type { ReturnTerms } from '../buyers/definition/buyer-definition.js';
import type { LedgerEntryType } from '../db/schema.js';
import { newId } from '../ids.js';
import type { LedgerEntry } from '../selling/ledger.js';

/** A sold lead its buyer returned, and the money it moved back; rows stay in lead-return.repository.ts. */
export interface LeadReturn {
  id: string;
  leadId: string;
  requestId: string;
  buyerId: string;
  publisherId: string;
  reason: string;
  note: string;
  /** Credited to the buyer: its charge, or less for a partial credit. */
  creditCents: number;
  /** Taken back from the publisher's payout under its clawback terms. */
  clawbackCents: number;
  /** Borne by the network: creditCents - clawbackCents. */
  marginCents: number;
  soldAt: number;
  returnedAt: number;
}

/** The sale a return reverses, as the sales table keeps it. */
export interface ReturnedSale {
  leadId: string;
  buyerId: string;
  publisherId: string;
  chargeCents: number;
  payoutCents: number;
  soldAt: number;
}

/**
 * What is taken back from the publisher: its payout in the share the credit is of the charge, times its
 * clawback terms (basis points), rounded down so a publisher is never charged a fraction of a cent more
 * than its terms say. BigInt: the product of three amounts may pass 2^53.
 */
export function clawbackCents(sale: ReturnedSale, creditCents: number, clawbackBps: number): number {
  if (sale.chargeCents === 0) return 0;
  return Number(
    (BigInt(sale.payoutCents) * BigInt(creditCents) * BigInt(clawbackBps)) / (BigInt(sale.chargeCents) * 10_000n),
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Calendar days from the day of `from` to the day of `to`, both in `timezone`. */
export function localDaysBetween(from: number, to: number, timezone: string): number {
  const day = (instant: number) => {
    const clock = zonedClock(new Date(instant), timezone);
    return Date.UTC(clock.year, clock.month - 1, clock.day);
  };
  return Math.round((day(to) - day(from)) / DAY_MS);
}

/** A lead sold on day D may be returned until the end of day D + windowDays, in the buyer's time zone. */
export function withinWindow(terms: ReturnTerms, soldAt: number, now: number, timezone: string): boolean {
  return localDaysBetween(soldAt, now, timezone) <= terms.windowDays;
}

/** Since when a buyer's purchases count towards its return cap. */
export function capPeriodStart(terms: ReturnTerms, now: number): number | undefined {
  return terms.maxRate && now - terms.maxRate.periodDays * DAY_MS;
}

/**
 * The reversing entries of a return, summing to zero: the buyer credited (positive), the publisher's
 * payout clawed back (negative) and the network bearing the rest (negative). Unique per lead and entry
 * type like a sale's, so a lead's return can never be booked twice.
 */
export function returnEntries(leadReturn: LeadReturn): LedgerEntry[] {
  const at = leadReturn.returnedAt;
  const entry = (type: LedgerEntryType, account: string, amountCents: number): LedgerEntry => ({
    id: newId('led', at),
    leadId: leadReturn.leadId,
    type,
    account,
    amountCents,
    createdAt: at,
  });
  return [
    entry('buyer_return_credit', `buyer:${leadReturn.buyerId}`, leadReturn.creditCents),
    entry('publisher_clawback', `publisher:${leadReturn.publisherId}`, -leadReturn.clawbackCents),
    entry('platform_return', 'platform', -leadReturn.marginCents),
  ];
}
