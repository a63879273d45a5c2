import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type handleUnaryCall, type Metadata, Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

export interface ReceivedSpan {
  service: string;
  /** The attributes of the resource that exported it. */
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** One export call as it arrived: over HTTP (path, content type) or gRPC (path is the method). */
export interface ReceivedExport {
  path: string;
  contentType: string;
  /** HTTP headers, or gRPC metadata, by lower-case name. */
  headers: Record<string, string>;
  request: ExportRequest;
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

type OtlpAttributes = { key: string; value: OtlpAnyValue }[];

/** ExportTraceServiceRequest as OTLP/JSON spells it (ids as hex), and as protobuf decodes below. */
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttributes };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttributes;
      }[];
    }[];
  }[];
}

const TRACE_SERVICE = 'opentelemetry.proto.collector.trace.v1.TraceService';
const definition = loadSync(path.join(import.meta.dirname, 'otlp-trace-service.proto'), {
  longs: Number,
  // Ids as hex, as OTLP/JSON carries them.
  bytes: String,
})[TRACE_SERVICE] as ServiceDefinition;
const exportMethod = definition.Export!;

/** A decoded protobuf request with its ids turned from base64 into OTLP/JSON's hex. */
function withHexIds(request: ExportRequest): ExportRequest {
  const hex = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('hex');
  for (const resourceSpans of request.resourceSpans ?? [])
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        span.parentSpanId = hex(span.parentSpanId);
      }
  return request;
}

function plain(value: OtlpAnyValue): unknown {
  // OTLP/JSON may spell an int64 as a string.
  const int = value.intValue === undefined ? undefined : Number(value.intValue);
  return value.stringValue ?? int ?? value.doubleValue ?? value.boolValue;
}

function attributesOf(attributes: OtlpAttributes | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((attribute) => [attribute.key, plain(attribute.value)]));
}

/** The spans of export requests, OTLP/JSON or protobuf alike. */
export function spansOf(requests: ExportRequest[]): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const request of requests) {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({
            service: String(resource['service.name'] ?? ''),
            resource,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
  return spans;
}

/** A small OTLP trace receiver standing in for Jaeger's collector. */
export interface OtlpReceiver {
  /** http://127.0.0.1:port, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint: string;
  exports: ReceivedExport[];
  /** Every request body received, as text (protobuf's strings are readable in it), for searching. */
  rawBodies: string[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

function receiver(
  endpoint: string,
  exports: ReceivedExport[],
  rawBodies: string[],
  close: () => Promise<void>,
): OtlpReceiver {
  return { endpoint, exports, rawBodies, spans: () => spansOf(exports.map((received) => received.request)), close };
}

function singleValued(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}

/** OTLP over HTTP, JSON (application/json) or protobuf (application/x-protobuf), on any path. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const rawBodies: string[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = request.headers['content-type'] ?? '';
    rawBodies.push(body.toString('utf8'));
    exports.push({
      path: request.url ?? '',
      contentType,
      headers: singleValued(request.headers),
      request: contentType.startsWith('application/json')
        ? (JSON.parse(body.toString('utf8')) as ExportRequest)
        : withHexIds(exportMethod.requestDeserialize(body) as ExportRequest),
    });
    response.writeHead(200, { 'content-type': contentType });
    response.end(contentType.startsWith('application/json') ? '{}' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return receiver(`http://127.0.0.1:${port}`, exports, rawBodies, async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
}

/** OTLP over gRPC: the collector's TraceService/Export, in plaintext. */
export async function startOtlpGrpcReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const rawBodies: string[] = [];
  const server = new Server();
  const handle: handleUnaryCall<ExportRequest, object> = (call, callback) => {
    const metadata = (call.metadata as Metadata).getMap();
    exports.push({
      path: exportMethod.path,
      contentType: String(metadata['content-type'] ?? 'application/grpc'),
      headers: Object.fromEntries(Object.entries(metadata).map(([name, value]) => [name, String(value)])),
      request: withHexIds(call.request),
    });
    rawBodies.push(JSON.stringify(call.request));
    callback(null, {});
  };
  server.addService(definition, { Export: handle });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return receiver(`http://127.0.0.1:${port}`, exports, rawBodies, async () => {
    server.forceShutdown();
  });
}
