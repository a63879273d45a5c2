import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { GatewayError } from '../errors.js';

export interface MetricsRoutesOptions {
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function bearerMatches(authorization: string | undefined, token: string): boolean {
  return authorization !== undefined && timingSafeEqual(digest(authorization), digest(`Bearer ${token}`));
}

/**
 * GET /metrics: Prometheus text exposition, never rate-limited. The gateway's port faces publishers,
 * so either the load balancer forwards only /api/intake/ and the probes, or LEADFLOW_METRICS_TOKEN is
 * set; without the token the endpoint answers 404, as if it did not exist. Scrapes log only warnings.
 */
export const metricsRoutes: FastifyPluginAsync<MetricsRoutesOptions> = async (app, options) => {
  const { token } = options;
  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) throw GatewayError.of('NOT_FOUND');
    const { registry } = app.metrics;
    return reply.type(registry.contentType).send(await registry.metrics());
  });
};
