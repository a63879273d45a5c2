import type { BuyerAttemptOutcome } from '../../services/distribution/src/db/schema.js';
import type { Answer } from './answer-tally.js';
import { ascending, percentile, round } from './stats.js';

/** One ping or post of a lead, as the audit trail keeps it, with the tier of the buyer called. */
export interface BuyerCall {
  tier: number;
  kind: 'ping' | 'post';
  durationMs: number;
  outcome: BuyerAttemptOutcome;
}

/** What the service stored of one lead. */
export interface StoredLead {
  /** The service's own time selling the lead (the lead's processing_ms). */
  processingMs: number | null;
  calls: BuyerCall[];
  /** The sale's, 0 when unsold. */
  chargeCents: number;
  payoutCents: number;
}

export interface MarketFigures {
  /** Leads answered in the measured run. */
  leads: number;
  /** Of them, leads the service has no record of (none expected). */
  unrecorded: number;
  soldRate: number;
  /** Dollars per lead answered: what buyers paid, what publishers got, what leadflow kept. */
  revenuePerLead: number;
  payoutPerLead: number;
  marginPerLead: number;
  buyerWaitP50Ms: number | undefined;
  buyerWaitP99Ms: number | undefined;
  /** processingTime of the answer minus the lead's buyer wait. */
  overheadP50Ms: number | undefined;
  overheadP99Ms: number | undefined;
  /** The lead's processing_ms minus its buyer wait: the selling engine alone. */
  engineOverheadP50Ms: number | undefined;
  engineOverheadP99Ms: number | undefined;
  calls: { pings: number; posts: number; errors: number; timeouts: number };
}

/**
 * The time a lead waited on buyers: the pings of a tier go out together, so each tier counts its slowest
 * ping once, then its posts one after another. Durations are the HTTP calls' own, so anything the
 * engine does around them counts as its overhead, not as waiting.
 */
export function buyerWaitMs(calls: readonly BuyerCall[]): number {
  const tiers = new Map<number, { slowestPing: number; posts: number }>();
  for (const { tier, kind, durationMs } of calls) {
    const wait = tiers.get(tier) ?? { slowestPing: 0, posts: 0 };
    if (kind === 'ping') wait.slowestPing = Math.max(wait.slowestPing, durationMs);
    else wait.posts += durationMs;
    tiers.set(tier, wait);
  }
  return [...tiers.values()].reduce((sum, wait) => sum + wait.slowestPing + wait.posts, 0);
}

/** The market's figures over the measured run's answers, each matched with what the service stored of its lead. */
export function marketFigures(answers: readonly Answer[], stored: ReadonlyMap<string, StoredLead>): MarketFigures {
  const waits: number[] = [];
  const overheads: number[] = [];
  const engineOverheads: number[] = [];
  const calls = { pings: 0, posts: 0, errors: 0, timeouts: 0 };
  let unrecorded = 0;
  let chargeCents = 0;
  let payoutCents = 0;
  for (const answer of answers) {
    const lead = stored.get(answer.leadId);
    if (!lead) {
      unrecorded += 1;
      continue;
    }
    const wait = buyerWaitMs(lead.calls);
    waits.push(wait);
    overheads.push(answer.processingMs - wait);
    if (lead.processingMs !== null) engineOverheads.push(lead.processingMs - wait);
    chargeCents += lead.chargeCents;
    payoutCents += lead.payoutCents;
    for (const call of lead.calls) {
      calls[call.kind === 'ping' ? 'pings' : 'posts'] += 1;
      if (call.outcome === 'error') calls.errors += 1;
      if (call.outcome === 'timeout' || call.outcome === 'unknown') calls.timeouts += 1;
    }
  }
  const perLead = (cents: number) => (answers.length === 0 ? 0 : round(cents / 100 / answers.length));
  const [wait, overhead, engineOverhead] = [waits, overheads, engineOverheads].map(ascending) as [number[], number[], number[]];
  return {
    leads: answers.length,
    unrecorded,
    soldRate: answers.length === 0 ? 0 : Math.round((answers.filter((a) => a.status === 'sold').length / answers.length) * 1000) / 1000,
    revenuePerLead: perLead(chargeCents),
    payoutPerLead: perLead(payoutCents),
    marginPerLead: perLead(chargeCents - payoutCents),
    buyerWaitP50Ms: percentile(wait, 0.5),
    buyerWaitP99Ms: percentile(wait, 0.99),
    overheadP50Ms: percentile(overhead, 0.5),
    overheadP99Ms: percentile(overhead, 0.99),
    engineOverheadP50Ms: percentile(engineOverhead, 0.5),
    engineOverheadP99Ms: percentile(engineOverhead, 0.99),
    calls,
  };
}
