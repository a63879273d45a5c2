import { ConfigError, loadDistributionConfig } from '@leadflow/service-kit/config';
import { routeGrpcLogs } from '@leadflow/service-kit/grpc-logging';
import { createLogger } from '@leadflow/service-kit/logger';
import { announceReady } from '@leadflow/service-kit/ready-signal';
import { startTelemetry } from '@leadflow/service-kit/telemetry';
import { startDistribution } from './server.js';

async function main(): Promise<void> {
  const config = loadDistributionConfig();
  const logger = createLogger('leadflow-distribution', config.logLevel, undefined, config.logFormat);
  routeGrpcLogs(logger);
  const telemetry = await startTelemetry('leadflow-distribution', logger);
  // The embedded default is what a newcomer runs first: `npm start` gives them a market to sell to.
  const demoSimulatorUrl = config.databaseUrl ? undefined : config.demoSimulatorUrl;
  const service = await startDistribution(config, { logger, demoSimulatorUrl });
  logger.info(
    { port: service.port, metricsPort: service.metricsPort, storage: config.databaseUrl ? 'mysql' : 'sqlite' },
    'distribution service listening',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    await service.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Renewed gRPC certificates at once, rather than at the next periodic check.
  process.on('SIGHUP', () => {
    try {
      const outcome = service.reloadCertificates();
      logger.info({ signal: 'SIGHUP', outcome }, 'TLS certificates checked');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      logger.error(
        { signal: 'SIGHUP', reason: error.message },
        'TLS certificates not reloaded: the previous ones stay in use',
      );
    }
  });
  announceReady();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`leadflow-distribution: ${error.message}`);
  } else {
    console.error('leadflow-distribution: failed to start:', (error as Error)?.message ?? error);
  }
  process.exit(1);
});
