import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry } from '../../services/service-kit/src/telemetry.js';

let exporter: InMemorySpanExporter | undefined;

/**
 * The test process's in-memory span exporter. The first call registers the
 * global tracer provider, which can be registered only once per process: every
 * test that looks at spans gets them from here.
 */
export function testSpanExporter(): InMemorySpanExporter {
  if (!exporter) {
    exporter = new InMemorySpanExporter();
    startTelemetry('test', { otlpEndpoint: undefined }, [new SimpleSpanProcessor(exporter)]);
  }
  return exporter;
}
