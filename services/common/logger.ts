import { trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs that carry the active trace id. Callers log ids and
 * outcomes, never lead values or keys; the redaction below is a second line of
 * defence for objects logged whole by mistake.
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
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
    mixin() {
      const spanContext = trace.getActiveSpan()?.spanContext();
      return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
    },
  });
}
