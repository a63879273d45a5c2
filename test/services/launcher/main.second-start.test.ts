import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { freePorts } from '../../support/ports.js';
import { type RunningProcess, startProcess, stopProcess, waitForProcess } from '../../support/source-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BANNER = 'leadflow is running';
const READY_LINE = 'stop with Ctrl-C';

/** `npm start` (the launcher and its children) as a real process, with none of this process's LEADFLOW_ settings. */
function launch(env: Record<string, string>): RunningProcess {
  return startProcess(
    'services/launcher/src/main.ts',
    { LEADFLOW_LOG_LEVEL: 'warn', ...env },
    {
      cwd: REPO_ROOT,
      inherits: (name) => !name.startsWith('LEADFLOW_') && name !== 'REDIS_URL' && name !== 'DATABASE_URL',
    },
  );
}

/** How a start that must not run ended: its exit code and everything it printed. */
async function refused(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const second = launch(env);
  const { code } = await second.ended;
  return { code, output: second.output.join('') };
}

describe('a second npm start beside a running one', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  let dataDir: string;
  let env: Record<string, string>;
  let first: RunningProcess;

  const tempDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-second-start-'));
    dirs.push(dir);
    return dir;
  };
  /** Ports no process uses, for every listener an `npm start` opens. */
  const otherPorts = async () => {
    const [http, grpc, metrics, simulator] = await freePorts(4);
    return {
      LEADFLOW_HTTP_PORT: String(http),
      LEADFLOW_GRPC_PORT: String(grpc),
      LEADFLOW_METRICS_PORT: String(metrics),
      LEADFLOW_SIMULATOR_PORT: String(simulator),
    };
  };

  before(async () => {
    dataDir = await tempDir();
    env = { LEADFLOW_DATA_DIR: dataDir, ...(await otherPorts()) };
    first = launch(env);
    await waitForProcess('npm start', first, () => first.output.join('').includes(READY_LINE), 60_000);
  });
  after(async () => {
    await stopProcess(first);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** The one line a second start on the first one's data directory prints, whatever its ports. */
  const expectRefusal = ({ code, output }: { code: number | null; output: string }) => {
    expect(code, output).to.not.equal(0);
    expect(output).to.not.include(BANNER);
    expect(output.trimEnd().split('\n'), output).to.have.length(1);
    expect(output).to.include(
      `leadflow is already running in ${dataDir} (npm start pid ${first.child.pid}, gateway http://127.0.0.1:${env.LEADFLOW_HTTP_PORT}); ` +
        `to run another beside it, give it its own data directory and ports: LEADFLOW_DATA_DIR=${dataDir}-2 `,
    );
    expect(output).to.include(` LEADFLOW_SIMULATOR_PORT=${Number(env.LEADFLOW_SIMULATOR_PORT) + 1} npm start`);
  };

  it('with the same data directory and ports, says in one line which one runs and how to run another', async () => {
    expectRefusal(await refused(env));
  });

  it('with the same data directory and other ports, refuses the same way, never announcing itself', async () => {
    expectRefusal(await refused({ LEADFLOW_DATA_DIR: dataDir, ...(await otherPorts()) }));
  });

  it("with its own data directory but the running gateway's port, never takes that gateway for its own", async () => {
    const ports = { ...(await otherPorts()), LEADFLOW_HTTP_PORT: env.LEADFLOW_HTTP_PORT! };
    const { code, output } = await refused({ LEADFLOW_DATA_DIR: await tempDir(), ...ports });
    expect(code, output).to.not.equal(0);
    expect(output).to.not.include(BANNER);
    expect(output).to.include(
      `127.0.0.1:${env.LEADFLOW_HTTP_PORT} is already in use by another process: stop that process, or set LEADFLOW_HTTP_PORT to a free port`,
    );
  });

  it("with its own data directory but the running simulator's port, names the setting that moves it", async () => {
    const ports = { ...(await otherPorts()), LEADFLOW_SIMULATOR_PORT: env.LEADFLOW_SIMULATOR_PORT! };
    const { code, output } = await refused({ LEADFLOW_DATA_DIR: await tempDir(), ...ports });
    expect(code, output).to.not.equal(0);
    expect(output).to.not.include(BANNER);
    expect(output).to.include(
      `leadflow: the buyer simulator (127.0.0.1:${env.LEADFLOW_SIMULATOR_PORT}, LEADFLOW_SIMULATOR_PORT) did not start`,
    );
  });

  it('leaves the running one serving', async () => {
    expect(first.child.exitCode).to.equal(null);
    const ready = await fetch(`http://127.0.0.1:${env.LEADFLOW_HTTP_PORT}/health/ready`);
    expect(ready.status).to.equal(200);
  });
});
