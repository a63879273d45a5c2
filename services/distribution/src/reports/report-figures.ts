import type { ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import { durationOfMs } from '@leadflow/service-kit/proto-time';
import { nearestRank } from './percentile.js';

const COUNTS = [
  'leads',
  'sold',
  'revenueCents',
  'payoutCents',
  'marginCents',
  'posts',
  'acceptedPosts',
  'timeouts',
  'errors',
  'unknownOutcomes',
  'returns',
  'returnedRevenueCents',
  'returnedPayoutCents',
  'returnedMarginCents',
] as const;
type Count = (typeof COUNTS)[number];

/** What one row of a report adds up, before rates and percentiles are taken. */
export interface Figures extends Record<Count, number> {
  /** processing_ms of the row's completed leads, in no order. */
  processingMs: number[];
}

function emptyFigures(): Figures {
  return {
    leads: 0,
    sold: 0,
    revenueCents: 0,
    payoutCents: 0,
    marginCents: 0,
    posts: 0,
    acceptedPosts: 0,
    timeouts: 0,
    errors: 0,
    unknownOutcomes: 0,
    returns: 0,
    returnedRevenueCents: 0,
    returnedPayoutCents: 0,
    returnedMarginCents: 0,
    processingMs: [],
  };
}

/** Adds `part` into `sum`; what `part` lacks counts as zero. */
function addFigures(sum: Figures, part: Partial<Figures>): void {
  for (const name of COUNTS) sum[name] += part[name] ?? 0;
  // A loop, not push(...values): a spread of millions of arguments overflows the stack.
  for (const value of part.processingMs ?? []) sum.processingMs.push(value);
}

/** Figures by group, summed from the parts the queries return. */
export class FigureGroups {
  readonly byKey = new Map<string, Figures>();

  add(key: string, part: Partial<Figures>): void {
    let figures = this.byKey.get(key);
    if (!figures) {
      figures = emptyFigures();
      this.byKey.set(key, figures);
    }
    addFigures(figures, part);
  }

  /** Every group added together. */
  total(): Figures {
    const total = emptyFigures();
    for (const figures of this.byKey.values()) addFigures(total, figures);
    return total;
  }
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

export function reportRow(key: string, name: string, figures: Figures): ReportRow {
  const processing = Float64Array.from(figures.processingMs).sort();
  return {
    key,
    name,
    leads: figures.leads,
    sold: figures.sold,
    soldRate: ratio(figures.sold, figures.leads),
    revenueCents: figures.revenueCents,
    payoutCents: figures.payoutCents,
    marginCents: figures.marginCents,
    processingTimeP50: processing.length === 0 ? undefined : durationOfMs(nearestRank(processing, 50)),
    processingTimeP95: processing.length === 0 ? undefined : durationOfMs(nearestRank(processing, 95)),
    buyerAcceptRate: ratio(figures.acceptedPosts, figures.posts),
    posts: figures.posts,
    timeouts: figures.timeouts,
    errors: figures.errors,
    unknownOutcomes: figures.unknownOutcomes,
    returns: figures.returns,
    returnRate: ratio(figures.returns, figures.sold),
    returnedRevenueCents: figures.returnedRevenueCents,
    returnedPayoutCents: figures.returnedPayoutCents,
    returnedMarginCents: figures.returnedMarginCents,
    netRevenueCents: figures.revenueCents - figures.returnedRevenueCents,
    netPayoutCents: figures.payoutCents - figures.returnedPayoutCents,
    netMarginCents: figures.marginCents - figures.returnedMarginCents,
  };
}
