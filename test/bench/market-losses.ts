import type { StoredLead } from './market-figures.js';

/*
 * Why a lead brought less than the best sale the market held for it: the engine's decisions, read from
 * its audit trail and set against the buyer of that best sale.
 */

export const LOSS_CAUSES = [
  /** The lead waits for a buyer whose post's answer did not come in time. */
  'unconfirmed',
  /** The best buyer's bid came after the ping window. */
  'late_bid',
  /** The best buyer was skipped for lack of time (its ping or its post). */
  'skipped_for_time',
  /** The best buyer was skipped for another reason (circuit open, ...). */
  'skipped',
  /** Another buyer bought first, at a lower price, before the best buyer was posted. */
  'sold_lower',
  /** The best buyer was posted and did not buy (an answer cut short, a fault the market did not plan). */
  'best_declined',
  /** None of the above: the best buyer was never reached. */
  'not_reached',
] as const;

export type LossCause = (typeof LOSS_CAUSES)[number];

/** The cause of a lead's loss against its best sale, by the buyer of that sale. */
export function lossCause(lead: StoredLead, bestBuyer: string): LossCause {
  if (lead.status === 'unconfirmed') return 'unconfirmed';
  const calls = lead.calls.filter((call) => call.buyer === bestBuyer);
  if (calls.some((call) => call.kind === 'ping' && call.late)) return 'late_bid';
  const skip = lead.skips.find((skipped) => skipped.buyer === bestBuyer);
  if (skip) return skip.reason === 'deadline' ? 'skipped_for_time' : 'skipped';
  if (calls.some((call) => call.kind === 'post')) return 'best_declined';
  return lead.chargeCents > 0 ? 'sold_lower' : 'not_reached';
}
