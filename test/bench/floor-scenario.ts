import { SERVICE_NODE_FLAGS } from '@leadflow/service-kit/service-node-flags';
import { freePorts } from '../support/ports.js';
import { childEnv } from './child-env.js';
import { ENDPOINTS } from './full-scenario.js';
import { applyLoad, type LoadSettings } from './load.js';
import { NodeProcess } from './node-process.js';
import { scripts } from './paths.js';
import { measureProcesses, type ScenarioResult } from './scenario.js';
import { simulatorProcess, simulatorUrl, writeSimulatorConfig } from './simulator-process.js';
import { withTempDir } from './temp-dir.js';

const KEYS = Array.from({ length: 50 }, (_, i) => `floor-key-${i}`);

/**
 * The floor of the full path: its shape done minimally. Fastify -> one grpc-js unary call -> one row
 * insert, one HTTP post to the full scenario's lender (the same simulator, as its own process), one
 * update, the answer; on SQLite or MySQL.
 */
export function runFloor(settings: LoadSettings, databaseUrl: string | undefined): Promise<ScenarioResult> {
  return withTempDir(async (dataDir) => {
    const simulator = simulatorProcess(await writeSimulatorConfig(dataDir, { seed: 1, endpoints: ENDPOINTS }));
    const buyerUrl = new URL(ENDPOINTS[0]!.path, await simulatorUrl(simulator, [simulator])).href;
    const [grpcPort, httpPort] = (await freePorts(2)) as [number, number];
    const env = childEnv({
      FLOOR_DATA_DIR: dataDir,
      FLOOR_GRPC_PORT: String(grpcPort),
      FLOOR_HTTP_PORT: String(httpPort),
      FLOOR_BUYER_URL: buyerUrl,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    const processes = [
      // The heap sizing of the processes it is the floor of, so that the two compare like for like.
      new NodeProcess('floor_server', scripts.floorServer, env, [], SERVICE_NODE_FLAGS.distribution),
      new NodeProcess('floor_gateway', scripts.floorGateway, env, [], SERVICE_NODE_FLAGS.gateway),
      simulator,
    ];
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    return measureProcesses(processes, `${baseUrl}/health/ready`, (window) =>
      applyLoad({ baseUrl, keys: KEYS, expectedStatuses: ['sold'] }, settings, window),
    );
  });
}
