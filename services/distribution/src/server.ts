import { Server, type ServerCredentials } from '@grpc/grpc-js';
import { AdminServiceClient, AdminServiceService } from '@leadflow/proto/leadflow/admin/v1/admin';
import {
  DistributionServiceClient,
  DistributionServiceService,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { ConfigError, type DistributionConfig } from '@leadflow/service-kit/config';
import { armCrashPoint } from '@leadflow/service-kit/crash-points';
import type { ServerTransportCredentials } from '@leadflow/service-kit/grpc-tls';
import { reloadPeriodically } from '@leadflow/service-kit/grpc-tls';
import { listenFailure } from '@leadflow/service-kit/listen-errors';
import type { Logger } from '@leadflow/service-kit/logger';
import { trace } from '@opentelemetry/api';
import { BuyerService } from './buyers/buyer.service.js';
import { SECRETS_FILE_VARIABLE, serviceValues } from './buyers/definition/buyer-values.js';
import { commitDurability } from './db/commit-durability.js';
import { lockDataDir } from './db/data-dir-lock.js';
import { createDatabase, type Db, migrateToLatest } from './db/database.js';
import { storageStartFailure } from './db/database-errors.js';
import { GroupCommit } from './db/group-commit.js';
import { seedDemo } from './demo/demo-seed.js';
import { loggedError } from './errors.js';
import { adminHandlers } from './grpc/admin.handlers.js';
import { callerChecksInterceptor } from './grpc/caller-checks.js';
import { distributionHandlers } from './grpc/distribution.handlers.js';
import { listenerTransport, logListenerTransport } from './grpc/listener-transport.js';
import { MAX_RECEIVED_MESSAGE_BYTES } from './grpc/message-limits.js';
import { readingRequestsSafely } from './grpc/request-decoding.js';
import { IntakeService } from './intake/intake.service.js';
import { LeadStatusLookup } from './intake/lead-status.js';
import { LeadLookup } from './leads/lead-lookup.js';
import { callMetricsInterceptor, countUnknownMethods } from './observability/call-metrics.js';
import { ServingHealth } from './observability/health.js';
import { DistributionMetrics } from './observability/metrics.js';
import { type MetricsServer, startMetricsServer } from './observability/metrics-server.js';
import { addReflection } from './observability/reflection.js';
import { PostbackWorker } from './postbacks/postback-worker.js';
import { PublisherPostbacks } from './postbacks/publisher-postbacks.js';
import { PublisherService } from './publishers/publisher.service.js';
import { BuyerReports } from './reports/buyer-reports.js';
import { ReportService } from './reports/report.service.js';
import { LeadReturns } from './returns/lead-returns.js';
import { verifyKeyRing } from './security/key-ring.js';
import { KeyedHasher } from './security/keyed-hash.js';
import { PiiCipher } from './security/pii-cipher.js';
import { PiiLifecycle } from './security/pii-lifecycle.js';
import { schedulePurge } from './security/pii-purge-schedule.js';
import { loadSecrets } from './security/secrets.js';
import { CircuitBreakers, DEFAULT_CIRCUIT_BREAKER } from './selling/circuit-breaker.js';
import { LateAnswers } from './selling/late-answers.js';
import { LeadResolution } from './selling/lead-resolution.js';
import type { LeadSeller } from './selling/lead-seller.js';
import { PingTreeSeller } from './selling/ping-tree.js';
import { PingLatencies } from './selling/ping-window.js';
import { PostFiguresStore } from './selling/post-figures-store.js';
import { Reconciler } from './selling/reconciler.js';

export interface RunningDistribution {
  port: number;
  /** Where Prometheus scrapes GET /metrics. */
  metricsPort: number;
  db: Db;
  adminToken: string;
  /** The demo publisher's key when this start created it. */
  demoKey: string | undefined;
  /**
   * Reads the gRPC TLS files again (they are also checked every minute): `changed` when new
   * connections now use renewed certificates. Throws a ConfigError, keeping the previous ones, when
   * the files fail a check; `unchanged` without TLS.
   */
  reloadCertificates(): 'changed' | 'unchanged';
  close(): Promise<void>;
}

export interface DistributionOptions {
  logger: Logger;
  /** Replaces the built-in buyer selection (tests). */
  seller?: LeadSeller;
  /** Where the demo buyers live: set, the demo publisher and buyers are created when the database has no publisher yet. */
  demoSimulatorUrl?: string;
}

const SHUTDOWN_GRACE_MS = 10_000;
/**
 * Posts kept open past their sale's deadline for a late answer, at most: a socket and a few objects
 * each. Beyond it a post is cut at the deadline, as a post to a buyer whose timeout is a decline is.
 */
const MAX_LINGERING_POSTS = 2_000;
/**
 * How long a stop waits for late answers before ending their calls (their leads stay held): the
 * buyers' post timeouts are seconds, and an orchestrator's stop grace is some tens of seconds.
 */
const LATE_ANSWERS_SHUTDOWN_GRACE_MS = 5_000;
/** How often each instance reads every instance's recent posts again, for the learned post figures. */
const POST_FIGURES_REFRESH_MS = 30_000;
/** How often each instance looks for publisher events due for delivery. */
const POSTBACK_SWEEP_INTERVAL_MS = 500;

function bind(server: Server, address: string, credentials: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (error, port) => (error ? reject(error) : resolve(port)));
  });
}

/** Drains in-flight calls, then forces the rest closed after the grace period. */
function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.forceShutdown(), SHUTDOWN_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/**
 * Opens storage, migrates it, and serves the distribution and admin gRPC
 * services. On the embedded default it first locks the data directory: one
 * service per SQLite file.
 */
export async function startDistribution(
  config: DistributionConfig,
  options: DistributionOptions,
): Promise<RunningDistribution> {
  // Checked before anything in the data directory is touched: a listener refused for want of TLS leaves no trace.
  const transport = listenerTransport(config);
  const lock = config.databaseUrl ? undefined : lockDataDir(config.dataDir);
  if (lock?.previous) {
    options.logger.warn(
      { previousPid: lock.previous.pid, previousHost: lock.previous.host },
      'the data directory was left locked by a process that ended without releasing it: taken over',
    );
  }
  let running: RunningDistribution;
  try {
    running = await serve(config, options, transport);
  } catch (error) {
    lock?.release();
    throw error;
  }
  return {
    ...running,
    async close() {
      try {
        await running.close();
      } finally {
        lock?.release();
      }
    },
  };
}

async function serve(
  config: DistributionConfig,
  options: DistributionOptions,
  transport: ServerTransportCredentials,
): Promise<RunningDistribution> {
  const { logger } = options;
  armCrashPoint(config.crashAt);
  const secrets = await loadSecrets(config);
  const buyerValues = serviceValues();
  buyerValues.reload();
  // A secrets file that is named but unusable is a configuration mistake, not a buyer apply one.
  if (process.env[SECRETS_FILE_VARIABLE]) {
    const problem = buyerValues.secretsProblem();
    if (problem !== undefined) throw new ConfigError(problem);
  }
  const cipher = new PiiCipher(secrets.piiKeys);
  const hasher = new KeyedHasher(secrets.hmacKey);
  const db = createDatabase(config);
  try {
    await migrateToLatest(db, { cipher, hasher });
    await verifyKeyRing(db, { cipher, hasher });
  } catch (error) {
    await db.destroy();
    throw (await storageStartFailure(error, config.databaseUrl)) ?? error;
  }
  const tracer = trace.getTracer('leadflow-distribution');
  const publishers = new PublisherService(db);
  const buyers = new BuyerService(db, logger, buyerValues);
  const breakers = new CircuitBreakers(DEFAULT_CIRCUIT_BREAKER);
  const figures = new PostFiguresStore(db, logger);
  const pingLatencies = new PingLatencies();
  const writes = new GroupCommit(db);
  const metrics = new DistributionMetrics(
    () => breakers.states(),
    () => {
      const validTo = transport.files?.certificate?.validTo;
      return validTo === undefined ? undefined : Date.parse(validTo);
    },
    () => figures.all(),
    () => pingLatencies.all(),
    (buyerId) => buyers.knownName(buyerId),
  );
  const { diskWaits, timeSyncs } = commitDurability(db);
  if (diskWaits) metrics.countDiskWaits(diskWaits);
  if (timeSyncs) metrics.timeStoreSyncs(timeSyncs);
  const treeDefaults = { routing: config.routingMode, pingWindowMs: config.pingWindowMs };
  const resolution = new LeadResolution(db, buyers, publishers);
  const lateAnswers = new LateAnswers({ resolution, logger, metrics, maxLingering: MAX_LINGERING_POSTS });
  const seller =
    options.seller ??
    new PingTreeSeller({
      db,
      writes,
      buyers,
      breakers,
      tracer,
      treeDefaults,
      pingLatencies,
      figures,
      orderByValue: config.postOrder === 'expected_value',
      lateAnswers,
      onAuditTrailLost: (attempt, error) => {
        metrics.auditTrailWriteFailed();
        logger.warn(
          { leadId: attempt.leadId, buyerId: attempt.buyerId, kind: attempt.kind, error: loggedError(error) },
          "a late attempt could not be added to the lead's audit trail",
        );
      },
    });
  const intake = new IntakeService({
    db,
    writes,
    publishers,
    buyers,
    seller,
    cipher,
    hasher,
    sellDeadlineMs: config.sellDeadlineMs,
    tracer,
    logger,
    metrics,
  });
  const reconciler = new Reconciler({
    db,
    buyers,
    resolution,
    sellDeadlineMs: config.sellDeadlineMs,
    retryWindowMs: config.leadRetryWindowMs,
    intervalMs: config.reconcileIntervalMs,
    logger,
    metrics,
  });
  const postbackWorker = new PostbackWorker({
    db,
    cipher,
    logger,
    metrics,
    intervalMs: POSTBACK_SWEEP_INTERVAL_MS,
    timeoutMs: config.postbackTimeoutMs,
    giveUpAfterMs: config.postbackRetryHours * 60 * 60_000,
  });
  const pii = new PiiLifecycle(db, cipher);
  const demoKey = options.demoSimulatorUrl
    ? await seedDemo(config.dataDir, options.demoSimulatorUrl, publishers, buyers)
    : undefined;

  const callerChecks = callerChecksInterceptor({
    adminToken: secrets.adminToken,
    gatewayIdentities: transport.mutual ? config.grpcTransport.gatewayIdentities : undefined,
    logger,
  });
  // Metrics first, the innermost: they see the status of calls the checks refuse too.
  const server = new Server({
    'grpc.max_receive_message_length': MAX_RECEIVED_MESSAGE_BYTES,
    interceptors: [callMetricsInterceptor(metrics), callerChecks],
  });
  countUnknownMethods(server, metrics);
  server.addService(
    readingRequestsSafely(DistributionServiceService),
    distributionHandlers({
      intake,
      publishers,
      leadStatus: new LeadStatusLookup(db, publishers, config.sellDeadlineMs),
      tracer,
      logger,
    }),
  );
  server.addService(
    readingRequestsSafely(AdminServiceService),
    adminHandlers({
      publishers,
      buyers,
      buyerReports: new BuyerReports(db, breakers, figures),
      reports: new ReportService(db),
      leads: new LeadLookup(db),
      resolution,
      returns: new LeadReturns(db, buyers, publishers, (leadReturn) =>
        metrics.leadReturned(leadReturn.buyerId, leadReturn.reason),
      ),
      postbacks: new PublisherPostbacks(db, publishers, cipher),
      pii,
      cipher,
      tracer,
      logger,
      treeDefaults,
    }),
  );
  const health = new ServingHealth([DistributionServiceClient.serviceName, AdminServiceClient.serviceName]);
  health.addToServer(server);
  addReflection(server);
  let port: number;
  let metricsServer: MetricsServer;
  try {
    const grpcAddress = `${config.grpcHost}:${config.grpcPort}`;
    port = await bind(server, grpcAddress, transport.credentials).catch((error: unknown) => {
      throw listenFailure(error, 'LEADFLOW_GRPC_PORT', grpcAddress) ?? error;
    });
    metricsServer = await startMetricsServer(metrics.registry, config.grpcHost, config.metricsPort, () =>
      health.isServing(),
    ).catch((error: unknown) => {
      const advice = ' (each distribution service on a host needs its own LEADFLOW_METRICS_PORT)';
      throw listenFailure(error, 'LEADFLOW_METRICS_PORT', `${config.grpcHost}:${config.metricsPort}`, advice) ?? error;
    });
  } catch (error) {
    server.forceShutdown();
    await db.destroy();
    throw error;
  }
  await figures.start(async () => (await buyers.list()).map((buyer) => buyer.id), POST_FIGURES_REFRESH_MS);
  const purgeSchedule =
    config.piiRetentionDays === undefined
      ? undefined
      : schedulePurge(pii, { retentionDays: config.piiRetentionDays, logger });
  reconciler.start();
  postbackWorker.start();
  health.serve();
  logListenerTransport(logger, config, transport);
  const stopReloading = transport.files ? reloadPeriodically(transport.files, logger) : undefined;
  return {
    port,
    metricsPort: metricsServer.port,
    db,
    adminToken: secrets.adminToken,
    demoKey,
    reloadCertificates: () => transport.files?.reload() ?? 'unchanged',
    async close() {
      stopReloading?.();
      health.drain();
      await purgeSchedule?.stop();
      await reconciler.stop();
      await postbackWorker.stop();
      await figures.stop();
      await shutdown(server);
      await lateAnswers.close(LATE_ANSWERS_SHUTDOWN_GRACE_MS);
      await metricsServer.close();
      await db.destroy();
    },
  };
}
