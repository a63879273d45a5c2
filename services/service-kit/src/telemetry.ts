import { randomBytes } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import {
  type Attributes,
  type Context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TelemetryConfig } from './config.js';

export interface Telemetry {
  shutdown(): Promise<void>;
}

/**
 * Registers the process-wide tracer provider: W3C trace context propagation,
 * async context, OTLP/HTTP export when an endpoint is configured, and stdout
 * when OTEL_TRACES_EXPORTER names `console`. With
 * nowhere to send spans, nothing is registered: the API's no-op tracer costs
 * nothing per lead, where recording spans nobody reads costs a share of the
 * distribution service's CPU.
 */
export function startTelemetry(
  serviceName: string,
  config: TelemetryConfig,
  extraProcessors: SpanProcessor[] = [],
): Telemetry {
  const spanProcessors = [...extraProcessors];
  if (config.otlpEndpoint) {
    const url = new URL(
      'v1/traces',
      config.otlpEndpoint.endsWith('/') ? config.otlpEndpoint : `${config.otlpEndpoint}/`,
    );
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: url.toString() })));
  }
  if (config.console) spanProcessors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
  if (spanProcessors.length === 0) return { shutdown: async () => undefined };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors,
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}

/**
 * A context whose trace is not sampled, for work nobody should trace (health probes arriving every few
 * seconds). Unlike suppressed tracing it travels: its traceparent says "not sampled", so the service
 * the call reaches records no span either.
 */
export function unsampledContext(): Context {
  const spanContext = {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.NONE,
  };
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

const metadataSetter: TextMapSetter<Metadata> = {
  set(metadata, key, value) {
    metadata.set(key, value);
  },
};

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get(metadata, key) {
    const values = metadata.get(key);
    if (values.length === 0) return undefined;
    return values.map(String);
  },
};

/** Puts the active trace context into outgoing gRPC metadata. */
export function injectTraceContext(context: Context, metadata: Metadata): Metadata {
  propagation.inject(context, metadata, metadataSetter);
  return metadata;
}

/** The caller's trace context from incoming gRPC metadata. */
export function extractTraceContext(metadata: Metadata): Context {
  return propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
}

/** Runs `work` inside a child span of the active one; the span ends (and records a failure) with it. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  work: (span: Span) => Promise<T> | T,
  attributes?: Attributes,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name });
      throw error;
    } finally {
      span.end();
    }
  });
}
