import { expect } from 'chai';
import { parseSamples } from '../support/metrics-text.js';
import { stageFigures } from './service-stages.js';

const BEFORE = parseSamples(
  [
    'leadflow_store_sync_seconds_bucket{le="0.001"} 50',
    'leadflow_store_sync_seconds_bucket{le="0.01"} 60',
    'leadflow_store_sync_seconds_bucket{le="+Inf"} 60',
    'nodejs_gc_duration_seconds_count{kind="minor"} 10',
    'nodejs_gc_duration_seconds_sum{kind="minor"} 0.02',
    'nodejs_eventloop_lag_p99_seconds 0.5',
  ].join('\n'),
);

describe('the distribution service stages of a bench run', () => {
  it('reads fsync quantiles within their buckets, counting only what the run added', () => {
    const after = parseSamples(
      [
        // The run added 100 fsyncs: 80 within 1 ms, 18 within 10 ms, 2 beyond.
        'leadflow_store_sync_seconds_bucket{le="0.001"} 130',
        'leadflow_store_sync_seconds_bucket{le="0.01"} 158',
        'leadflow_store_sync_seconds_bucket{le="+Inf"} 160',
        'nodejs_gc_duration_seconds_count{kind="minor"} 30',
        'nodejs_gc_duration_seconds_sum{kind="minor"} 0.08',
        'nodejs_gc_duration_seconds_count{kind="major"} 2',
        'nodejs_gc_duration_seconds_sum{kind="major"} 0.012',
        // Whole sampling intervals of 50 ms: the delay is what exceeds them.
        'nodejs_eventloop_lag_p50_seconds 0.05105',
        'nodejs_eventloop_lag_p99_seconds 0.054',
      ].join('\n'),
    );
    expect(stageFigures(BEFORE, after)).to.deep.equal({
      syncP50Ms: 0.63,
      syncP90Ms: 6,
      // Past the last finite bucket: its bound, as Prometheus's histogram_quantile says.
      syncP99Ms: 10,
      eventLoopDelayP50Ms: 1.05,
      eventLoopDelayP99Ms: 4,
      gcPauses: { minor: { count: 20, meanMs: 3 }, major: { count: 2, meanMs: 6 } },
    });
  });

  it('has no fsync figures on a store that has none (MySQL)', () => {
    const figures = stageFigures([], parseSamples('nodejs_eventloop_lag_p99_seconds 0.052'));
    expect(figures).to.include({ syncP50Ms: undefined, syncP99Ms: undefined, eventLoopDelayP99Ms: 2 });
  });
});
