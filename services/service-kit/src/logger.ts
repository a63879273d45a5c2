import { isSpanContextValid, type Span, TraceFlags, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino } from 'pino';
import { type LogFormat, prettyDestination } from './log-format.js';

export type { Logger };

/**
 * The span's trace and span id when it belongs to a recorded trace; undefined for a no-op span
 * (tracing off: all zeros) or an unsampled one (a health probe): their ids lead nowhere.
 */
export function sampledSpanIds(span: Span | undefined): { trace_id: string; span_id: string } | undefined {
  const spanContext = span?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext) || !(spanContext.traceFlags & TraceFlags.SAMPLED))
    return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * Structured JSON logs that carry the active span's trace id when tracing is on
 * (telemetry.ts); with tracing off no span is recorded and
 * lines carry no trace id. Callers log ids and outcomes, never lead values or
 * keys; the redaction below is a second line of defence for objects logged
 * whole by mistake. Lines go to stdout unless `destination` is given, as JSON (numeric levels, epoch
 * ms times) or, with `format` pretty, as readable lines for a terminal.
 */
export function createLogger(
  service: string,
  level: string,
  destination?: DestinationStream,
  format: LogFormat = 'json',
): Logger {
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
      mixin() {
        return sampledSpanIds(trace.getActiveSpan()) ?? {};
      },
    },
    format === 'pretty' ? prettyDestination(destination) : destination,
  );
}
