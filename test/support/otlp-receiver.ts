import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpAnyValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: { key: string; value: OtlpAnyValue }[];
      }[];
    }[];
  }[];
}

function plain(value: OtlpAnyValue): unknown {
  return value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue;
}

/** A small OTLP/HTTP (JSON) trace receiver standing in for Jaeger's collector. */
export interface OtlpReceiver {
  endpoint: string;
  /** Every request body received, as text, for searching. */
  rawBodies: string[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const rawBodies: string[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    rawBodies.push(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    rawBodies,
    spans() {
      const spans: ReceivedSpan[] = [];
      for (const body of rawBodies) {
        for (const resourceSpans of (JSON.parse(body) as OtlpExport).resourceSpans ?? []) {
          const service = resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name');
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service: String(service ? plain(service.value) : ''),
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: Object.fromEntries(
                  (span.attributes ?? []).map((attribute) => [attribute.key, plain(attribute.value)]),
                ),
              });
            }
          }
        }
      }
      return spans;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
