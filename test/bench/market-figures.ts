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
  /** Leads answered in the measured run, but for the opening burst. */
  leads: number;
  /** The first lead of each connection, left out: they arrive all at once, as no steady load does. */
  openingBurst: number;
  /** Of them, leads the service has no record of (none expected). */
  unrecorded: number;
  soldRate: number;
  /** Dollars per lead answered: what buyers paid, what publishers got, what leadflow kept. */
  revenuePerLead: number;
  payoutPerLead: number;
  marginPerLead: number;
  /** processingTime of the answers. */
  processingP50Ms: number | undefined;
  processingP99Ms: number | undefined;
  buyerWaitP50Ms: number | undefined;
  buyerWaitP99Ms: number | undefined;
  /** processingTime of the answer minus the lead's buyer wait. */
  overheadP50Ms: number | undefined;
  overheadP99Ms: number | undefined;
  /** The lead's processing_ms minus its buyer wait: the selling engine alone. */
  engineOverheadP50Ms: number | undefined;
  engineOverheadP99Ms: number | undefined;
  /** overheadP99Ms with the opening burst counted. */
  overheadP99WithOpeningMs: number | undefined;
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

interface MatchedLead {
  answer: Answer;
  lead: StoredLead;
  waitMs: number;
}

/** processingTime minus buyer wait. */
const overheadOf = ({ answer, waitMs }: MatchedLead): number => answer.processingMs - waitMs;

const p50p99 = (values: number[]): [number | undefined, number | undefined] => {
  const sorted = ascending(values);
  return [percentile(sorted, 0.5), percentile(sorted, 0.99)];
};

/**
 * The market's figures over the measured run's answers but its opening burst, each matched with what the
 * service stored of its lead.
 */
export function marketFigures(measured: readonly Answer[], stored: ReadonlyMap<string, StoredLead>): MarketFigures {
  const matched: MatchedLead[] = measured.flatMap((answer) => {
    const lead = stored.get(answer.leadId);
    return lead ? [{ answer, lead, waitMs: buyerWaitMs(lead.calls) }] : [];
  });
  const steady = matched.filter(({ answer }) => !answer.opening);
  const steadyAnswers = measured.filter((answer) => !answer.opening);
  const leads = steadyAnswers.length;
  const calls = { pings: 0, posts: 0, errors: 0, timeouts: 0 };
  let chargeCents = 0;
  let payoutCents = 0;
  for (const { lead } of steady) {
    chargeCents += lead.chargeCents;
    payoutCents += lead.payoutCents;
    for (const call of lead.calls) {
      calls[call.kind === 'ping' ? 'pings' : 'posts'] += 1;
      if (call.outcome === 'error') calls.errors += 1;
      if (call.outcome === 'timeout' || call.outcome === 'unknown') calls.timeouts += 1;
    }
  }
  const perLead = (cents: number) => (leads === 0 ? 0 : round(cents / 100 / leads));
  const sold = steadyAnswers.filter((answer) => answer.status === 'sold').length;
  const [processingP50Ms, processingP99Ms] = p50p99(steady.map(({ answer }) => answer.processingMs));
  const [buyerWaitP50Ms, buyerWaitP99Ms] = p50p99(steady.map(({ waitMs }) => waitMs));
  const [overheadP50Ms, overheadP99Ms] = p50p99(steady.map(overheadOf));
  const [engineOverheadP50Ms, engineOverheadP99Ms] = p50p99(
    steady.flatMap(({ lead, waitMs }) => (lead.processingMs === null ? [] : [lead.processingMs - waitMs])),
  );
  return {
    leads,
    openingBurst: measured.length - leads,
    unrecorded: measured.length - matched.length,
    soldRate: leads === 0 ? 0 : Math.round((sold / leads) * 1000) / 1000,
    revenuePerLead: perLead(chargeCents),
    payoutPerLead: perLead(payoutCents),
    marginPerLead: perLead(chargeCents - payoutCents),
    processingP50Ms,
    processingP99Ms,
    buyerWaitP50Ms,
    buyerWaitP99Ms,
    overheadP50Ms,
    overheadP99Ms,
    engineOverheadP50Ms,
    engineOverheadP99Ms,
    overheadP99WithOpeningMs: p50p99(matched.map(overheadOf))[1],
    calls,
  };
}
