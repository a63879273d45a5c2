import { startNodeSdk } from '@leadflow/service-kit/node-sdk';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';

let exporter: InMemorySpanExporter | undefined;

/**
 * The test process's in-memory span exporter. The first call starts the SDK as the services do, which
 * registers the global tracer provider, possible only once per process: every test that looks at
 * spans gets them from here.
 */
export function testSpanExporter(): InMemorySpanExporter {
  if (!exporter) {
    exporter = new InMemorySpanExporter();
    startNodeSdk('test', [new SimpleSpanProcessor(exporter)], pino({ level: 'silent' }));
  }
  return exporter;
}
