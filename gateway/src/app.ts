import type { DistributionServiceClient } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import type { GatewayConfig } from '@leadflow/service-kit/config';
import { createLogger, type Logger } from '@leadflow/service-kit/logger';
import { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, fastify, LogController } from 'fastify';
import { answerClientError } from './client-errors.js';
import { handleError, handleNotFound } from './error-handler.js';
import { httpServerOptions, lingerLimits } from './http-server-options.js';
import { MAX_BODY_BYTES } from './intake/lead-body.js';
import { MAX_ROUTE_PARAM_LENGTH } from './intake/route-parameters.js';
import { connectionClose } from './plugins/connection-close.js';
import { distribution } from './plugins/distribution.js';
import { forwardedForWarning } from './plugins/forwarded-for-warning.js';
import { metrics } from './plugins/metrics.js';
import { protocolChecks } from './plugins/protocol-checks.js';
import { rateLimiter } from './plugins/rate-limiter.js';
import { requestTelemetry } from './plugins/request-telemetry.js';
import type { RateLimiter } from './rate-limit/index.js';
import { healthRoutes } from './routes/health.js';
import { intakeRoutes } from './routes/intake.js';
import { metricsRoutes } from './routes/metrics.js';
import { openApiRoutes } from './routes/openapi.js';

export const GATEWAY_SERVICE_NAME = 'leadflow-gateway';

export interface GatewayOptions {
  config: GatewayConfig;
  logger?: Logger;
  /** Owned by the caller when given; otherwise created from the config and closed with the app. */
  rateLimiter?: RateLimiter;
  /** Owned by the caller when given; otherwise created from the config and closed with the app. */
  distributionClient?: DistributionServiceClient;
}

/**
 * Whatever Fastify logs about a request names its route template, never its URL,
 * which carries the webmaster key.
 */
function withoutUrls(logger: Logger): FastifyBaseLogger {
  return logger.child(
    {},
    {
      serializers: {
        req: (request: FastifyRequest) => ({ method: request.method, route: request.routeOptions?.url }),
      },
    },
  );
}

/** The gateway, built and not listening: `listen` it, or `inject` requests in tests. */
export function buildGateway(options: GatewayOptions): FastifyInstance {
  const { config } = options;
  const app = fastify({
    loggerInstance: withoutUrls(options.logger ?? createLogger(GATEWAY_SERVICE_NAME, config.logLevel)),
    // The request telemetry plugin writes the one line per request instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: MAX_BODY_BYTES,
    ...httpServerOptions(config.httpTimeouts),
    trustProxy: config.trustProxy,
    // Requests arriving while the gateway drains are still answered in the gateway's own shape.
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_ROUTE_PARAM_LENGTH },
    // Routing failures (bad percent-encoding, an over-long key) would otherwise be answered with the path echoed.
    frameworkErrors: handleError,
    clientErrorHandler: answerClientError,
  });

  app.register(requestTelemetry);
  app.register(metrics);
  app.register(connectionClose, { linger: lingerLimits(config.httpTimeouts) });
  app.register(protocolChecks);
  if (!config.trustProxy) app.register(forwardedForWarning);
  app.register(distribution, {
    address: config.distributionAddress,
    tls: config.distributionTransport?.tls,
    intakeDeadlineMs: config.intakeDeadlineMs,
    client: options.distributionClient,
  });
  app.register(rateLimiter, { redisUrl: config.redisUrl, rateLimiter: options.rateLimiter });

  app.register(intakeRoutes, {
    defaultRateLimitPerMinute: config.defaultRateLimitPerMinute,
    authFailureLimit: config.authFailureLimit,
  });
  app.register(healthRoutes);
  app.register(openApiRoutes, { defaultRateLimitPerMinute: config.defaultRateLimitPerMinute });
  app.register(metricsRoutes, { token: config.metricsToken });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  return app;
}
