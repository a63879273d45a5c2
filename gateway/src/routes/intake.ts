import type { FastifyPluginAsync } from 'fastify';
import { fromLeadStatusFailure, fromSubmitFailure } from '../distribution/grpc-errors.js';
import { GatewayError } from '../errors.js';
import { admission, type IntakeParams } from '../intake/admission.js';
import { AuthFailures } from '../intake/auth-failures.js';
import { intakeAnswer } from '../intake/intake-answer.js';
import { leadFromBody, MAX_BODY_BYTES, refuseEncodedBody } from '../intake/lead-body.js';
import { leadStatusAnswer } from '../intake/lead-status-answer.js';
import { publisherLimit } from '../intake/publisher-limit.js';
import { utf8JsonParser } from '../intake/utf8-json.js';
import { PublisherKeys } from '../keys/publisher-keys.js';
import { processingTimeMs } from '../plugins/request-telemetry.js';
import { foldPluginHeaders } from '../rate-limit/plugin-headers.js';
import { refuseOtherMethods } from './other-methods.js';

export interface IntakeRoutesOptions {
  defaultRateLimitPerMinute: number;
  /** Failed authentications allowed per client address in any rolling minute. */
  authFailureLimit: number;
}

const INTAKE_PATH = '/api/intake/:webmasterKey';
const LEAD_STATUS_PATH = '/api/intake/:webmasterKey/leads/:clickid';

/**
 * POST /api/intake/:webmasterKey: one lead in, one gRPC SubmitLead call, the outcome as HTTP.
 * GET /api/intake/:webmasterKey/leads/:clickid: that lead's outcome now, with the same key checks, the
 * same error bodies and counted in the same publisher's limit.
 * Any other method on either path: 405, with the methods it takes in Allow.
 */
export const intakeRoutes: FastifyPluginAsync<IntakeRoutesOptions> = async (app, options) => {
  // JSON only: with no parser for text/plain, Fastify answers every other type 415.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, utf8JsonParser(app));
  app.decorateRequest('publisher', null);

  const keys = new PublisherKeys((webmasterKey, parent) => app.distribution.resolvePublisherKey(webmasterKey, parent));

  const publisherRoute = {
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
  };

  const intakeRoute = { ...publisherRoute, bodyLimit: MAX_BODY_BYTES, preParsing: refuseEncodedBody };
  app.post<{ Params: IntakeParams }>(INTAKE_PATH, intakeRoute, async (request) => {
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
  });

  app.get<{ Params: LeadStatusParams }>(LEAD_STATUS_PATH, publisherRoute, async (request) => {
    const { webmasterKey, clickid } = request.params;
    const response = await app.distribution
      .getLeadStatus({ webmasterKey, clickid }, request.telemetry.context)
      .catch((error: unknown) => {
        throw fromLeadStatusFailure(error);
      });
    return leadStatusAnswer(response, () => processingTimeMs(request));
  });

  refuseOtherMethods(app, INTAKE_PATH, ['POST']);
  // Fastify answers HEAD as GET.
  refuseOtherMethods(app, LEAD_STATUS_PATH, ['GET', 'HEAD']);
};

interface LeadStatusParams extends IntakeParams {
  clickid: string;
}
