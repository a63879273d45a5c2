import { EVENT_LOOP_SAMPLING_MS } from '@leadflow/service-kit/metrics';
import { parseSamples, type Sample } from '../support/metrics-text.js';
import type { MeasuredWindow } from './load.js';
import { round } from './stats.js';

/** Where the distribution service's time outside the buyers went in a measured run, from its metrics. */
export interface StageFigures {
  /** The WAL fsyncs' durations (embedded store only), ms, estimated within their histogram buckets. */
  syncP50Ms: number | undefined;
  syncP90Ms: number | undefined;
  syncP99Ms: number | undefined;
  /**
   * The event loop's delay over the run (prom-client resets it at each scrape), ms: how much later than
   * asked its sampling timer ran.
   */
  eventLoopDelayP50Ms: number | undefined;
  eventLoopDelayP99Ms: number | undefined;
  /** Collection pauses on the main thread, by kind (minor = scavenge, major = mark-compact): count and mean ms. */
  gcPauses: Record<string, { count: number; meanMs: number }>;
}

/**
 * The distribution service's metrics, read once when the measured run starts and once when it stops: one
 * scrape each for every figure, since prom-client resets its event-loop histogram at each scrape.
 */
export class ServiceMetricsMeter implements MeasuredWindow {
  private startedAt: Sample[] | undefined;
  /** The two readings, once stopped. */
  readings: { before: Sample[]; after: Sample[] } | undefined;

  constructor(private readonly metricsUrl: string) {}

  async start(): Promise<void> {
    this.startedAt = await this.read();
  }

  async stop(): Promise<void> {
    const after = await this.read();
    if (this.startedAt) this.readings = { before: this.startedAt, after };
  }

  private async read(): Promise<Sample[]> {
    return parseSamples(await (await fetch(this.metricsUrl)).text());
  }
}

export function stageFigures(before: readonly Sample[], after: readonly Sample[]): StageFigures {
  const syncs = bucketDeltas(before, after, 'leadflow_store_sync_seconds_bucket');
  const lag = (quantile: string) => {
    const interval = after.find((sample) => sample.name === `nodejs_eventloop_lag_${quantile}_seconds`)?.value;
    return interval === undefined ? undefined : msOf(Math.max(interval - EVENT_LOOP_SAMPLING_SECONDS, 0));
  };
  return {
    syncP50Ms: quantileMs(syncs, 0.5),
    syncP90Ms: quantileMs(syncs, 0.9),
    syncP99Ms: quantileMs(syncs, 0.99),
    eventLoopDelayP50Ms: lag('p50'),
    eventLoopDelayP99Ms: lag('p99'),
    gcPauses: gcPauses(before, after),
  };
}

const msOf = (seconds: number | undefined) => (seconds === undefined ? undefined : round(seconds * 1000));

/** The services' event-loop sampling interval: prom-client's lag quantiles are whole intervals between samples. */
const EVENT_LOOP_SAMPLING_SECONDS = EVENT_LOOP_SAMPLING_MS / 1000;

/** Cumulative counts by upper bound (seconds), as counted between the two readings. */
function bucketDeltas(before: readonly Sample[], after: readonly Sample[], name: string): [number, number][] {
  const counts = (samples: readonly Sample[]) =>
    new Map(samples.filter((sample) => sample.name === name).map((sample) => [sample.labels.le!, sample.value]));
  const earlier = counts(before);
  return [...counts(after)]
    .map(([le, count]): [number, number] => [
      le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le),
      count - (earlier.get(le) ?? 0),
    ])
    .sort(([a], [b]) => a - b);
}

/** As Prometheus's histogram_quantile: linear within the bucket the quantile falls in. */
function quantileMs(buckets: readonly [number, number][], quantile: number): number | undefined {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  const target = quantile * total;
  let lower = 0;
  let below = 0;
  for (const [upper, count] of buckets) {
    if (count >= target) {
      if (upper === Number.POSITIVE_INFINITY) return msOf(lower);
      return msOf(lower + ((upper - lower) * (target - below)) / Math.max(count - below, 1));
    }
    lower = upper;
    below = count;
  }
  return undefined;
}

function gcPauses(before: readonly Sample[], after: readonly Sample[]): StageFigures['gcPauses'] {
  const byKind = (samples: readonly Sample[], suffix: string) =>
    new Map(
      samples
        .filter((sample) => sample.name === `nodejs_gc_duration_seconds_${suffix}`)
        .map((sample) => [sample.labels.kind!, sample.value]),
    );
  const [countsBefore, sumsBefore, counts, sums] = [
    byKind(before, 'count'),
    byKind(before, 'sum'),
    byKind(after, 'count'),
    byKind(after, 'sum'),
  ];
  const pauses: StageFigures['gcPauses'] = {};
  for (const [kind, count] of counts) {
    const measured = count - (countsBefore.get(kind) ?? 0);
    if (measured <= 0) continue;
    const seconds = (sums.get(kind) ?? 0) - (sumsBefore.get(kind) ?? 0);
    pauses[kind] = { count: measured, meanMs: round((seconds * 1000) / measured) };
  }
  return pauses;
}
