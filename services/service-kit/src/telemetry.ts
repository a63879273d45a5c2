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
import type { Logger } from './logger.js';

export interface Telemetry {
  /** Ends tracing: the spans not yet exported are sent first. */
  shutdown(): Promise<void>;
}

/** Variables that ask for spans to be exported somewhere. */
const EXPORT_SETTINGS = ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];

/**
 * Starts tracing as the standard OTEL_* variables say (node-sdk.ts, trace-exporters.ts), once they
 * name somewhere to send spans. Without, nothing is loaded or registered, where the SDK alone would
 * send to http://localhost:4318: the API's no-op tracer costs nothing per lead, where recording
 * spans nobody reads costs a share of the distribution service's CPU, and the SDK and its exporters
 * some 10 MB of resident memory.
 */
export async function startTelemetry(serviceName: string, logger: Logger): Promise<Telemetry> {
  const nothing: Telemetry = { shutdown: async () => undefined };
  if (!EXPORT_SETTINGS.some((name) => (process.env[name] ?? '').trim() !== '')) return nothing;
  const { logDiagnostics, startNodeSdk } = await import('./node-sdk.js');
  const { traceProcessorsFromEnv } = await import('./trace-exporters.js');
  // The exporters warn of a setting they cannot use (an endpoint that is no URL) as they are made.
  logDiagnostics(logger);
  const spanProcessors = traceProcessorsFromEnv();
  if (spanProcessors.length === 0) return nothing;
  return startNodeSdk(serviceName, spanProcessors, logger);
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
