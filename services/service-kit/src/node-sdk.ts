import { hostname } from 'node:os';
import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { diagLogLevelFromString, getStringFromEnv } from '@opentelemetry/core';
import { defaultResource, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from './logger.js';
import type { Telemetry } from './telemetry.js';

type LogMethod = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The SDK's own diagnostics (a failed export, a setting it cannot use) as log lines of the service. */
function diagnosticsLogger(logger: Logger): DiagLogger {
  const log = logger.child({ component: 'opentelemetry' });
  const at =
    (method: LogMethod) =>
    (message: string, ...details: unknown[]) =>
      log[method](details.length > 0 ? { details: details.map(String) } : {}, message);
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), verbose: at('trace') };
}

/** Sends the SDK's diagnostics to the logs, at OTEL_LOG_LEVEL (warn unless set). */
export function logDiagnostics(logger: Logger): void {
  const logLevel = diagLogLevelFromString(getStringFromEnv('OTEL_LOG_LEVEL')) ?? DiagLogLevel.WARN;
  diag.setLogger(diagnosticsLogger(logger), { logLevel, suppressOverrideMessage: true });
}

/**
 * Starts the OpenTelemetry Node SDK with these span processors. NodeSDK reads the standard variables
 * that shape the spans: OTEL_SDK_DISABLED, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (over the
 * service's own name), OTEL_TRACES_SAMPLER and its argument, span limits, OTEL_PROPAGATORS.
 *
 * Nothing is instrumented automatically: http instrumentation would record the intake URL, and the
 * webmaster key in it; the code makes its spans by hand. The resource names the host, without the
 * host detector's machine id (which systemd asks to keep off the network) or the process detector's
 * command line and owner. leadflow's metrics are Prometheus's and its logs pino's: no OTLP metrics or
 * logs, which NodeSDK would otherwise send to localhost:4318.
 */
export function startNodeSdk(serviceName: string, spanProcessors: SpanProcessor[], logger: Logger): Telemetry {
  // With OTEL_LOG_LEVEL set, NodeSDK's constructor points the diagnostics at the console (stdout, several
  // lines each); they go back to the logs after it, without a warning about the one replaced.
  diag.disable();
  const sdk = new NodeSDK({
    resource: defaultResource().merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName, 'host.name': hostname() }),
    ),
    resourceDetectors: [envDetector],
    instrumentations: [],
    spanProcessors,
    metricReaders: [],
    logRecordProcessors: [],
  });
  logDiagnostics(logger);
  sdk.start();
  return {
    // The last spans cannot always be sent (the collector is down): that is said, and the process stops all the same.
    shutdown: () =>
      sdk.shutdown().catch((error: unknown) => {
        logger.warn({ reason: String(error) }, 'traces: the last spans could not be exported');
      }),
  };
}
