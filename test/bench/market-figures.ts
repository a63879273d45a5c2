import type { BuyerAttemptOutcome } from '@leadflow/distribution';
import type { Answer } from './answer-tally.js';
import type { DiskWaitFigures } from './disk-waits.js';
import type { StageFigures } from './service-stages.js';
import { ascending, percentile, round } from './stats.js';

/** One ping or post of a lead, as the audit trail keeps it. */
export interface BuyerCall {
  /** The buyer's name. */
  buyer: string;
  kind: 'ping' | 'post';
  /** Epoch ms. */
  startedAt: number;
  durationMs: number;
  outcome: BuyerAttemptOutcome;
  /** A ping answered after the ping window closed, once no post could use it (the sale or its tier over). */
  late: boolean;
}

/** A buyer considered for a lead and not called, with its reason (deadline, floor, capped, ...). */
export interface BuyerSkip {
  buyer: string;
  reason: string | null;
}

/** What the service stored of one lead. */
export interface StoredLead {
  /** The publisher's click id: the lead's name in every run of the bench (lead-body.ts). */
  clickid: string;
  /** sold, rejected, unconfirmed, ... */
  status: string;
  /** The service's own time selling the lead (the lead's processing_ms). */
  processingMs: number | null;
  calls: BuyerCall[];
  skips: BuyerSkip[];
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
  /** The embedded store's commits that waited for the disk; set by the scenario, none on MySQL. */
  diskWaits?: DiskWaitFigures;
  /** The distribution service's fsyncs, event-loop delay and collection pauses over the run. */
  stages?: StageFigures;
}

/**
 * The time a lead waited on buyers: the union of its calls' spans (a tier's pings go out together, posts
 * one after another, tiers may be pinged at once), each cut at the end of the sale when its length is
 * known (saleMs, from the first call): a ping still open when the ping window closed was waited for only
 * until then, and the sale goes on with posts or ends. Durations are the HTTP calls' own, so anything
 * the engine does around them counts as its overhead, not as waiting.
 */
export function buyerWaitMs(calls: readonly BuyerCall[], saleMs?: number): number {
  if (calls.length === 0) return 0;
  const start = Math.min(...calls.map((call) => call.startedAt));
  const end = saleMs === undefined ? Number.POSITIVE_INFINITY : start + saleMs;
  const spans = calls
    .map((call): [number, number] => [call.startedAt, Math.min(call.startedAt + call.durationMs, end)])
    .filter(([from, to]) => to > from)
    .sort(([a], [b]) => a - b);
  let total = 0;
  let open: [number, number] | undefined;
  for (const [from, to] of spans) {
    if (open && from <= open[1]) open[1] = Math.max(open[1], to);
    else {
      if (open) total += open[1] - open[0];
      open = [from, to];
    }
  }
  return open ? total + open[1] - open[0] : total;
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
    return lead ? [{ answer, lead, waitMs: buyerWaitMs(lead.calls, lead.processingMs ?? undefined) }] : [];
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
