import { createMetricsRegistry, LATENCY_BUCKETS_SECONDS } from '@leadflow/service-kit/metrics';
import fp from 'fastify-plugin';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The route label of a request that matched no route: never its path, which may carry a key. */
const UNMATCHED_ROUTE = 'unmatched';

/** This gateway's Prometheus metrics; label values are route templates, methods and status codes only. */
export class GatewayMetrics {
  readonly registry: Registry = createMetricsRegistry();

  readonly requests = new Counter({
    name: 'leadflow_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly processingTime = new Histogram({
    name: 'leadflow_http_processing_time_seconds',
    help: 'processingTime of the intake answers that carry one (sold or rejected leads), in seconds',
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'leadflow_rate_limited_total',
    help: "Intake requests refused with 429, by the limit that refused them: a publisher's (key) or an address's failed authentications (auth_failures)",
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  readonly rateLimiterFallbacks = new Counter({
    name: 'leadflow_rate_limiter_fallbacks_total',
    help: 'Intake requests counted by this gateway alone because the shared (Redis) rate limiter failed',
    registers: [this.registry],
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: GatewayMetrics;
  }
}

/** Decorates the gateway with its metrics and counts every answered request. */
export const metrics = fp(
  async (app) => {
    const gatewayMetrics = new GatewayMetrics();
    app.decorate('metrics', gatewayMetrics);
    app.addHook('onResponse', (request, reply, done) => {
      gatewayMetrics.requests.inc({
        route: request.telemetry?.route ?? UNMATCHED_ROUTE,
        method: request.method,
        status: String(reply.statusCode),
      });
      done();
    });
  },
  { name: 'metrics' },
);
