import { freePorts } from '../support/ports.js';
import { childEnv } from './child-env.js';
import { applyLoad, type LoadSettings } from './load.js';
import { NodeProcess } from './node-process.js';
import { scripts } from './paths.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { withTempDir } from './temp-dir.js';

const KEYS = Array.from({ length: 50 }, (_, i) => `floor-key-${i}`);

/** The floor of our shape: Fastify -> one grpc-js unary call -> one row insert, on SQLite or MySQL. */
export function runFloor(settings: LoadSettings, databaseUrl: string | undefined): Promise<ScenarioResult> {
  return withTempDir(async (dataDir) => {
    const [grpcPort, httpPort] = (await freePorts(2)) as [number, number];
    const env = childEnv({
      FLOOR_DATA_DIR: dataDir,
      FLOOR_GRPC_PORT: String(grpcPort),
      FLOOR_HTTP_PORT: String(httpPort),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    const processes = [
      new NodeProcess('floor_server', scripts.floorServer, env),
      new NodeProcess('floor_gateway', scripts.floorGateway, env),
    ];
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    return measureProcesses(processes, `${baseUrl}/health/ready`, () =>
      applyLoad({ baseUrl, keys: KEYS, expectedStatuses: ['rejected'] }, settings),
    );
  });
}
