import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  type DistributionProcess,
  endsOnItsOwn,
  listening,
  spawnDistribution,
  stop,
} from '../../../support/distribution-process.js';

describe('the embedded data directory, with distribution services as processes', function () {
  this.timeout(120_000);
  let dataDir: string;
  const started: DistributionProcess[] = [];
  const start = async (options: { umask?: string } = {}) => {
    const service = await spawnDistribution({ LEADFLOW_DATA_DIR: dataDir }, options);
    started.push(service);
    return service;
  };

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-datadir-'));
  });
  afterEach(async () => {
    for (const service of started.splice(0)) await stop(service, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates every file owner-only in an existing, open directory under umask 000', async () => {
    await chmod(dataDir, 0o755);
    const service = await start({ umask: '000' });
    await listening(service);
    const modes: Record<string, string> = {};
    for (const entry of await readdir(dataDir))
      modes[entry] = ((await stat(path.join(dataDir, entry))).mode & 0o777).toString(8);
    expect(Object.keys(modes)).to.include.members([
      'leadflow.sqlite',
      'leadflow.sqlite-wal',
      'leadflow.sqlite-shm',
      'secrets.json',
      'leadflow.lock',
    ]);
    for (const [file, mode] of Object.entries(modes)) expect(mode, file).to.equal('600');
  });

  it('refuses a second service on the same directory, naming the first one', async () => {
    const first = await start();
    await listening(first);
    const second = await start();
    const { code, output } = await endsOnItsOwn(second);
    expect(code).to.equal(1);
    expect(output).to.include(
      `leadflow-distribution: ${dataDir} is in use by another distribution service (pid ${first.child.pid} on `,
    );
    expect(output).to.include('one service per embedded data directory');
    // The first one is unharmed.
    expect(first.child.exitCode).to.equal(null);
  });

  it('takes the directory over from a service that was killed (no stale lock)', async () => {
    const first = await start();
    await listening(first);
    await stop(first, 'SIGKILL');
    const second = await start();
    await listening(second);
    expect(second.output()).to.include('left locked by a process that ended without releasing it');
    expect(second.output()).to.include(`"previousPid":${first.child.pid}`);
  });

  it('hands the directory on after a clean stop, without a warning', async () => {
    const first = await start();
    await listening(first);
    await stop(first);
    expect(first.child.exitCode).to.equal(0);
    const second = await start();
    await listening(second);
    expect(second.output()).not.to.include('left locked');
  });
});
