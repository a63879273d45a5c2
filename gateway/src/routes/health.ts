import { unsampledContext } from '@leadflow/service-kit/telemetry';
import type { FastifyPluginAsync } from 'fastify';
import { ReadinessProbe } from '../distribution/readiness.js';
import { errorBody, GatewayError } from '../errors.js';

/**
 * Liveness: the process answers. Readiness: the distribution service answers a
 * cheap call (resolving the empty key), so a load balancer stops sending leads
 * to a gateway that could only answer 503.
 */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  // Probes arrive every few seconds; their calls would only crowd the trace store, on either side.
  const probe = new ReadinessProbe(() => app.distribution.resolvePublisherKey('', unsampledContext()));

  app.get('/health/live', async () => ({ status: 'ok' }));

  app.get('/health/ready', async (_request, reply) => {
    if (await probe.isReady()) return { status: 'ok' };
    return reply.code(503).send(errorBody(GatewayError.serviceUnavailable()));
  });
};
