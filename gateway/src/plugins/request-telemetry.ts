import { performance } from 'node:perf_hooks';
import { sampledSpanIds } from '@leadflow/service-kit/logger';
import { unsampledContext } from '@leadflow/service-kit/telemetry';
import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

export interface RequestTelemetry {
  span: Span;
  /** The context in which work for this request runs, so calls join its trace. */
  context: Context;
  /** performance.now() when the gateway received the request. */
  receivedAt: number;
  route: string | undefined;
  finished: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the first onRequest hook of every request. */
    telemetry: RequestTelemetry;
  }
}

const PROCESSING_TIME_ATTRIBUTE = 'leadflow.processing_time_ms';

const tracer = trace.getTracer('leadflow-gateway');

/** `/api/intake/:webmasterKey` -> `/api/intake/{webmasterKey}`: the template, never the path with the key in it. */
function routeTemplate(request: FastifyRequest): string | undefined {
  const url = request.routeOptions.url;
  return url === undefined ? undefined : url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function elapsedMs(telemetry: RequestTelemetry): number {
  return Math.round((performance.now() - telemetry.receivedAt) * 100) / 100;
}

/** Milliseconds since the gateway received the request, 2 decimals; also recorded on the request's span. */
export function processingTimeMs(request: FastifyRequest): number {
  const ms = elapsedMs(request.telemetry);
  request.telemetry.span.setAttribute(PROCESSING_TIME_ATTRIBUTE, ms);
  return ms;
}

/**
 * One SERVER span and one log line per request, both named by the route
 * template, never by the URL (it carries the webmaster key) nor by any body value.
 */
export const requestTelemetry = fp(
  async (app) => {
    app.decorateRequest('telemetry');

    app.addHook('onRequest', (request, _reply, done) => {
      const route = routeTemplate(request);
      // Publishers are outside the trust boundary: their trace context is not continued. Probes are not traced.
      const parent = route?.startsWith('/health/') ? unsampledContext() : ROOT_CONTEXT;
      const span = tracer.startSpan(
        route ? `${request.method} ${route}` : request.method,
        {
          kind: SpanKind.SERVER,
          attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}) },
        },
        parent,
      );
      request.telemetry = {
        span,
        context: trace.setSpan(parent, span),
        receivedAt: performance.now(),
        route,
        finished: false,
      };
      done();
    });

    app.addHook('onResponse', (request, reply, done) => {
      finish(request, reply.statusCode, 'request completed');
      done();
    });

    app.addHook('onRequestAbort', (request, done) => {
      finish(request, undefined, 'request aborted by the client');
      done();
    });
  },
  { name: 'request-telemetry' },
);

function finish(request: FastifyRequest, statusCode: number | undefined, message: string): void {
  const telemetry = request.telemetry;
  if (!telemetry || telemetry.finished) return;
  telemetry.finished = true;
  const { span, route } = telemetry;
  if (statusCode === undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted' });
  } else {
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
    if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
  // With tracing off or a probe's unsampled trace, the ids name no trace: no id is better than a false one.
  const ids = sampledSpanIds(span);
  request.log.info(
    {
      method: request.method,
      route,
      statusCode,
      durationMs: elapsedMs(telemetry),
      ...(ids ? { trace_id: ids.trace_id } : {}),
    },
    message,
  );
}
