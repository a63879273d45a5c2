import { collectDefaultMetrics, Registry } from 'prom-client';

/** Histogram buckets in seconds, from 1 ms to 30 s: a fast rejection up to a lead that waited on slow buyers. */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];

/**
 * How often the event loop's delay is sampled, ms. Each sample wakes the process: at prom-client's default
 * of 10 ms that cost an idle service about 9 ms of CPU a second on a 2-core VM, about 1 ms a lead at ten
 * leads a second; at 50 ms it costs about 2. The `nodejs_eventloop_lag_*` quantiles are the intervals between
 * samples, so the delay is what exceeds this.
 */
export const EVENT_LOOP_SAMPLING_MS = 50;

let processRegistry: Registry | undefined;

/**
 * The process's own figures (CPU, memory, event loop, GC), collected once per process however many
 * services it runs: every collection starts its own event-loop monitor and GC observer, and tests
 * start dozens of gateways and services in one process.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLING_MS });
  }
  return processRegistry;
}

/**
 * A registry for one service instance: its own metrics are registered in it by that instance, and the
 * process metrics are shared with every other instance of the process.
 */
export function createMetricsRegistry(): Registry {
  return Registry.merge([processMetrics()]);
}
