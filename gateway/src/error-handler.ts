import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, GatewayError } from './errors.js';
import { overLongParameter } from './intake/route-parameters.js';

/** Fastify's own failures (parsing, routing) as gateway errors, by their stable codes. */
function fromFastifyError(error: FastifyError, url: string): GatewayError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return GatewayError.of('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return GatewayError.of('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return GatewayError.badRequest({ body: 'must be a JSON object' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return GatewayError.badRequest({ body: 'must be valid JSON' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return GatewayError.badRequest({ body: 'does not match Content-Length' });
    case 'FST_ERR_BAD_URL':
      return GatewayError.badRequest({ url: 'is not a valid URL' });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return GatewayError.of(overLongParameter(url));
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // A body stream that broke off, or another client-side failure Fastify knows by status only.
    return GatewayError.badRequest({ body: 'could not be read' });
  }
  return undefined;
}

export function toGatewayError(error: unknown, url: string): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof Error) {
    const known = fromFastifyError(error as FastifyError, url);
    if (known) return known;
  }
  return GatewayError.of('INTERNAL_SERVER_ERROR');
}

/**
 * The one error handler: every failure becomes the gateway's error body. 5xx are
 * logged with their cause; the cause never reaches the client. Client errors are
 * not logged here: their messages (e.g. a JSON syntax error) can quote the body.
 */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const gatewayError = toGatewayError(error, request.url);
  if (gatewayError.statusCode >= 500) {
    const cause = error === gatewayError ? { detail: gatewayError.internalDetail } : { err: error };
    const traceId = request.telemetry?.span.spanContext().traceId;
    request.log.error({ code: gatewayError.code, ...cause, trace_id: traceId }, 'request failed');
  }
  if (gatewayError.retryAfterSeconds !== undefined) {
    reply.header('retry-after', String(gatewayError.retryAfterSeconds));
  }
  return reply.code(gatewayError.statusCode).send(errorBody(gatewayError));
}

export function handleNotFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send(errorBody(GatewayError.of('NOT_FOUND')));
}
