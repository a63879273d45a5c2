import type { FastifyPluginAsync } from 'fastify';
import { fromSubmitFailure } from '../distribution/grpc-errors.js';
import { GatewayError } from '../errors.js';
import { admission, type IntakeParams } from '../intake/admission.js';
import { AuthFailures } from '../intake/auth-failures.js';
import { intakeAnswer } from '../intake/intake-answer.js';
import { leadFromBody, MAX_BODY_BYTES } from '../intake/lead-body.js';
import { publisherLimit } from '../intake/publisher-limit.js';
import { PublisherKeys } from '../keys/publisher-keys.js';
import { processingTimeMs } from '../plugins/request-telemetry.js';
import { foldPluginHeaders } from '../rate-limit/plugin-headers.js';

export interface IntakeRoutesOptions {
  defaultRateLimitPerMinute: number;
  /** Failed authentications allowed per client address in any rolling minute. */
  authFailureLimit: number;
}

const INTAKE_PATH = '/api/intake/:webmasterKey';

/** POST /api/intake/:webmasterKey: one lead in, one gRPC SubmitLead call, the outcome as HTTP. */
export const intakeRoutes: FastifyPluginAsync<IntakeRoutesOptions> = async (app, options) => {
  // JSON only: with no parser for text/plain, Fastify answers every other type 415.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('publisher', null);

  const keys = new PublisherKeys((webmasterKey, parent) => app.distribution.resolvePublisherKey(webmasterKey, parent));

  app.post<{ Params: IntakeParams }>(
    INTAKE_PATH,
    {
      bodyLimit: MAX_BODY_BYTES,
      onRequest: admission({
        keys,
        authFailures: new AuthFailures({ limiter: app.rateLimiter, limit: options.authFailureLimit }),
        onLockedOut: () => app.metrics.rateLimited.inc({ limit: 'auth_failures' }),
      }),
      config: {
        rateLimit: publisherLimit({
          defaultRateLimitPerMinute: options.defaultRateLimitPerMinute,
          onExceeded: () => app.metrics.rateLimited.inc({ limit: 'key' }),
        }),
      },
      onSend: foldPluginHeaders(app.rateLimiter.windowSeconds),
    },
    async (request) => {
      // Fastify skips parsing only for a request with neither a Content-Type nor a body.
      if (request.body === undefined) throw GatewayError.of('UNSUPPORTED_MEDIA_TYPE');
      const { lead, nonStringFields } = leadFromBody(request.body);
      const response = await app.distribution
        .submitLead({ webmasterKey: request.params.webmasterKey, lead, nonStringFields }, request.telemetry.context)
        .catch((error: unknown) => {
          throw fromSubmitFailure(error);
        });
      return intakeAnswer(response, () => {
        const ms = processingTimeMs(request);
        app.metrics.processingTime.observe(ms / 1000);
        return ms;
      });
    },
  );
};
