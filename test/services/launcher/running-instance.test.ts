import { mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HeldLock } from '@leadflow/distribution';
import {
  AlreadyRunning,
  claimDataDir,
  INSTANCE_FILE,
  type InstanceAddresses,
} from '@leadflow/launcher/src/running-instance';
import { expect } from 'chai';

describe('the npm start of a data directory', () => {
  const addresses: InstanceAddresses = {
    gateway: 'http://127.0.0.1:3000',
    httpPort: 3000,
    grpcPort: 50051,
    metricsPort: 9464,
    simulatorPort: 4010,
  };
  let dataDir: string;
  let held: HeldLock | undefined;

  beforeEach(async () => {
    dataDir = path.join(await mkdtemp(path.join(tmpdir(), 'leadflow-instance-')), 'my data');
  });
  afterEach(async () => {
    held?.release();
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  const refusal = (): string => {
    try {
      claimDataDir(dataDir, { ...addresses, gateway: 'http://127.0.0.1:3001', httpPort: 3001 }).release();
    } catch (error) {
      expect(error).to.be.instanceOf(AlreadyRunning);
      return (error as Error).message;
    }
    throw new Error('a second claim was granted');
  };

  it('refuses a second one, naming the first and a command that runs another beside it', async () => {
    held = claimDataDir(dataDir, addresses);
    expect((await stat(path.join(dataDir, INSTANCE_FILE))).mode & 0o777).to.equal(0o600);
    expect(refusal()).to.equal(
      `leadflow is already running in ${dataDir} (npm start pid ${process.pid}, gateway http://127.0.0.1:3000); ` +
        `to run another beside it, give it its own data directory and ports: LEADFLOW_DATA_DIR='${dataDir}-2' ` +
        'LEADFLOW_HTTP_PORT=3001 LEADFLOW_GRPC_PORT=50052 LEADFLOW_METRICS_PORT=9465 LEADFLOW_SIMULATOR_PORT=4011 npm start',
    );
  });

  it('names the holder by its pid while it has not written where it serves', async () => {
    held = claimDataDir(dataDir, { ...addresses, simulatorPort: undefined });
    await unlink(path.join(dataDir, INSTANCE_FILE));
    expect(refusal()).to.equal(
      `leadflow is already running in ${dataDir} (npm start pid ${process.pid}); to run another beside it, ` +
        'give it its own LEADFLOW_DATA_DIR and free LEADFLOW_HTTP_PORT, LEADFLOW_GRPC_PORT, LEADFLOW_METRICS_PORT and LEADFLOW_SIMULATOR_PORT',
    );
  });

  it('is free again once the holder lets go', () => {
    claimDataDir(dataDir, addresses).release();
    held = claimDataDir(dataDir, addresses);
  });
});
