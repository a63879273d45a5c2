import { randomBytes } from 'node:crypto';
import { childEnv } from './child-env.js';
import { freePort } from './free-port.js';
import { applyLoad, type LoadSettings } from './load.js';
import { NodeProcess } from './node-process.js';
import { scripts } from './paths.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { seedPublishersAndBuyer } from './seed.js';
import { withTempDir } from './temp-dir.js';

/** MySQL has no embedded secrets: every instance takes them from the environment. */
function mysqlSettings(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    LEADFLOW_PII_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    LEADFLOW_HMAC_KEY: randomBytes(32).toString('base64'),
  };
}

/** The real intake path: the compiled gateway and distribution service, leads sold to one buyer. */
export function runFull(settings: LoadSettings, databaseUrl: string | undefined): Promise<ScenarioResult> {
  return withTempDir(async (dataDir) => {
    const grpcPort = await freePort();
    const httpPort = await freePort();
    const adminToken = randomBytes(24).toString('hex');
    const env = childEnv({
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_GRPC_PORT: String(grpcPort),
      LEADFLOW_HTTP_PORT: String(httpPort),
      LEADFLOW_ADMIN_TOKEN: adminToken,
      LEADFLOW_LOG_LEVEL: 'warn',
      ...(databaseUrl ? mysqlSettings(databaseUrl) : {}),
    });
    const processes = [
      new NodeProcess('distribution', scripts.distribution, env),
      new NodeProcess('gateway', scripts.gateway, env),
    ];
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    return measureProcesses(processes, `${baseUrl}/health/ready`, async () => {
      const keys = await seedPublishersAndBuyer(`127.0.0.1:${grpcPort}`, adminToken);
      return applyLoad({ baseUrl, keys, expectedStatus: 'sold' }, settings);
    });
  });
}
