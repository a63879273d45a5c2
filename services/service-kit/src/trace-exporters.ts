import { getStringFromEnv, getStringListFromEnv } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ConfigError } from './config.js';
import { SpanJsonLinesExporter } from './span-json-lines.js';

/** The trace exporters OTEL_TRACES_EXPORTER may name. */
const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;

/** OTLP's transports by their OTEL_EXPORTER_OTLP_PROTOCOL names; each exporter reads its endpoint and headers itself. */
const OTLP_EXPORTERS: Record<string, () => SpanExporter> = {
  'http/protobuf': () => new ProtobufTraceExporter(),
  'http/json': () => new JsonTraceExporter(),
  grpc: () => new GrpcTraceExporter(),
};

function otlpExporter(): SpanExporter {
  const variable = getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = getStringFromEnv(variable) ?? 'http/protobuf';
  const create = OTLP_EXPORTERS[protocol];
  if (!create) {
    throw new ConfigError(`${variable} names ${protocol}: it takes one of ${Object.keys(OTLP_EXPORTERS).join(', ')}`);
  }
  return create();
}

/**
 * The span processors OTEL_TRACES_EXPORTER names, made as NodeSDK makes them from it: OTLP in batches
 * (sdk-trace-base's batch processor reads the OTEL_BSP_* settings), console span by span. They are made
 * here because NodeSDK takes either the exporters the variables name or the processors it is given,
 * and its console exporter prints several lines per span on stdout, among the JSON log lines; `console`
 * here writes one JSON line per span to stderr. Unset, the variable means `otlp`: the caller comes here
 * only once an endpoint or an exporter is set. A name it does not know stops the process, as any bad
 * setting does, where NodeSDK would warn and go on.
 */
export function traceProcessorsFromEnv(): SpanProcessor[] {
  const names = [...new Set(getStringListFromEnv('OTEL_TRACES_EXPORTER') ?? ['otlp'])];
  const unknown = names.filter((name) => !(TRACES_EXPORTERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `OTEL_TRACES_EXPORTER names ${unknown.join(', ')}: it takes a comma-separated list of ${TRACES_EXPORTERS.join(', ')}`,
    );
  }
  if (names.includes('none')) {
    if (names.length > 1) throw new ConfigError('OTEL_TRACES_EXPORTER=none goes alone: it turns tracing off');
    return [];
  }
  return names.map((name) =>
    name === 'console' ? new SimpleSpanProcessor(new SpanJsonLinesExporter()) : new BatchSpanProcessor(otlpExporter()),
  );
}
