import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode, hrTimeToMilliseconds, hrTimeToTimeStamp } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** One finished span as its JSON line says it: OTLP's names, readable values (kind and status by name, ISO times). */
export function spanRecord(span: ReadableSpan): Record<string, unknown> {
  const { traceId, spanId } = span.spanContext();
  return {
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: span.name,
    kind: SpanKind[span.kind],
    startTime: hrTimeToTimeStamp(span.startTime),
    durationMs: hrTimeToMilliseconds(span.duration),
    status: SpanStatusCode[span.status.code],
    statusMessage: span.status.message,
    attributes: span.attributes,
    events: span.events.map((event) => ({
      name: event.name,
      time: hrTimeToTimeStamp(event.time),
      attributes: event.attributes,
    })),
    links: span.links.map((link) => ({ ...link.context, attributes: link.attributes })),
    resource: span.resource.attributes,
    scope: span.instrumentationScope.name,
  };
}

/**
 * OTEL_TRACES_EXPORTER=console: each finished span as one JSON object on one line of stderr. The SDK's
 * own console exporter prints multi-line object dumps on stdout, in the middle of the JSON log lines;
 * on stderr, `... | jq` over stdout still reads only logs, and a collector that reads both streams
 * still gets one JSON object per line.
 */
export class SpanJsonLinesExporter implements SpanExporter {
  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(line)) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) this.write(`${JSON.stringify(spanRecord(span))}\n`);
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}
