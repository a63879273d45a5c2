import { ConfigError, type GatewayConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import { routeGrpcLogs } from '@leadflow/service-kit/grpc-logging';
import { listenFailure } from '@leadflow/service-kit/listen-errors';
import { createLogger } from '@leadflow/service-kit/logger';
import { announceReady } from '@leadflow/service-kit/ready-signal';
import { startTelemetry } from '@leadflow/service-kit/telemetry';
import { buildGateway, GATEWAY_SERVICE_NAME } from './app.js';

function loadConfig(): GatewayConfig {
  try {
    return loadGatewayConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${GATEWAY_SERVICE_NAME}: ${error.message}`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(GATEWAY_SERVICE_NAME, config.logLevel, undefined, config.logFormat);
  routeGrpcLogs(logger);
  const telemetry = await startTelemetry(GATEWAY_SERVICE_NAME, logger);
  const app = buildGateway({ config, logger });
  await app.listen({ host: config.httpHost, port: config.httpPort }).catch(async (error: unknown) => {
    await app.close();
    throw listenFailure(error, 'LEADFLOW_HTTP_PORT', `${config.httpHost}:${config.httpPort}`) ?? error;
  });

  let closing = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    // A request in flight ends within its gRPC deadline; past that, something hangs.
    setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, config.intakeDeadlineMs + 5000).unref();
    // Stops accepting, waits for requests in flight, then closes the gRPC client and the limiter.
    await app.close();
    await telemetry.shutdown();
    logger.info('stopped');
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
  announceReady();
}

main().catch((error: unknown) => {
  // A certificate file that cannot be used is a setting to fix, told as one line.
  if (error instanceof ConfigError) console.error(`${GATEWAY_SERVICE_NAME}: ${error.message}`);
  else console.error(`${GATEWAY_SERVICE_NAME}: failed to start:`, error);
  process.exit(1);
});
