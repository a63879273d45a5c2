import { isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/**
 * Structured JSON logs that carry the active span's trace id when tracing is on
 * (OTEL_EXPORTER_OTLP_ENDPOINT set); with tracing off no span is recorded and
 * lines carry no trace id. Callers log ids and outcomes, never lead values or
 * keys; the redaction below is a second line of defence for objects logged
 * whole by mistake. Lines go to stdout unless `destination` is given.
 */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: {
        paths: [
          'key',
          'webmasterKey',
          'lead',
          'body',
          '*.webmasterKey',
          '*.lead',
          'req.params',
          'req.url',
          'request.params',
          'headers.authorization',
          '*.headers.authorization',
        ],
        censor: '[redacted]',
      },
      // With tracing off, spans are no-ops whose ids are all zeros: those are left out.
      mixin() {
        const spanContext = trace.getActiveSpan()?.spanContext();
        return spanContext && isSpanContextValid(spanContext)
          ? { trace_id: spanContext.traceId, span_id: spanContext.spanId }
          : {};
      },
    },
    destination,
  );
}
