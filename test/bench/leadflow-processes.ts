import { randomBytes } from 'node:crypto';
import { SERVICE_NODE_FLAGS } from '@leadflow/service-kit/service-node-flags';
import { freePorts } from '../support/ports.js';
import { childEnv } from './child-env.js';
import { NodeProcess } from './node-process.js';
import { scripts } from './paths.js';

/** The compiled distribution service and gateway, configured but not yet known to be ready. */
export interface LeadflowProcesses {
  processes: NodeProcess[];
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  readyUrl: string;
  /** The distribution service's Prometheus metrics. */
  metricsUrl: string;
  /** host:port of the admin and distribution gRPC services. */
  grpcAddress: string;
  adminToken: string;
}

/** MySQL has no embedded secrets: every instance takes them from the environment. */
function mysqlSettings(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    LEADFLOW_PII_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    LEADFLOW_HMAC_KEY: randomBytes(32).toString('base64'),
  };
}

/**
 * Starts the real intake path on dataDir (embedded SQLite) or databaseUrl (MySQL); settings are more
 * LEADFLOW_ variables (e.g. the sell deadline).
 */
export async function startLeadflow(
  dataDir: string,
  databaseUrl: string | undefined,
  settings: Record<string, string> = {},
): Promise<LeadflowProcesses> {
  const [grpcPort, httpPort, metricsPort] = (await freePorts(3)) as [number, number, number];
  const adminToken = randomBytes(24).toString('hex');
  const env = childEnv({
    LEADFLOW_DATA_DIR: dataDir,
    LEADFLOW_GRPC_PORT: String(grpcPort),
    LEADFLOW_METRICS_PORT: String(metricsPort),
    LEADFLOW_HTTP_PORT: String(httpPort),
    LEADFLOW_ADMIN_TOKEN: adminToken,
    LEADFLOW_LOG_LEVEL: 'warn',
    ...(databaseUrl ? mysqlSettings(databaseUrl) : {}),
    ...settings,
  });
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  return {
    processes: [
      // With the heap sizing they run with in production.
      new NodeProcess('distribution', scripts.distribution, env, [], SERVICE_NODE_FLAGS.distribution),
      new NodeProcess('gateway', scripts.gateway, env, [], SERVICE_NODE_FLAGS.gateway),
    ],
    baseUrl,
    readyUrl: `${baseUrl}/health/ready`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    adminToken,
  };
}
