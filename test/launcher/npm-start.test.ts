import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { freePorts, tcpAccepts } from '../support/ports.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_LINE = 'stop with Ctrl-C';

interface Launcher {
  child: ChildProcess;
  output: string;
}

/** `npm start` (the launcher and its three children) as real processes, with none of this process's LEADFLOW_ settings. */
async function startLauncher(env: Record<string, string>): Promise<Launcher> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('LEADFLOW_') && name !== 'REDIS_URL' && name !== 'DATABASE_URL',
    ),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/launcher/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...inherited, LEADFLOW_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const launcher: Launcher = { child, output: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (launcher.output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (launcher.output += chunk));
  const giveUpAt = Date.now() + 60_000;
  while (!launcher.output.includes(READY_LINE)) {
    if (child.exitCode !== null) throw new Error(`npm start ended:\n${launcher.output}`);
    if (Date.now() > giveUpAt) throw new Error(`npm start did not start:\n${launcher.output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return launcher;
}

async function stopLauncher(launcher: Launcher | undefined): Promise<void> {
  if (!launcher || launcher.child.exitCode !== null) return;
  launcher.child.kill('SIGTERM');
  await once(launcher.child, 'exit');
}

/** An address of this machine that is not loopback, if it has one. */
function externalIpv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

describe('npm start', function () {
  this.timeout(120_000);
  let dataDir: string;
  let env: Record<string, string>;
  let httpPort: number;
  let first: Launcher | undefined;
  let second: Launcher | undefined;
  let key: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-start-'));
    const [http, grpc, simulator] = await freePorts(3);
    httpPort = http!;
    env = {
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_HTTP_PORT: String(http),
      LEADFLOW_GRPC_PORT: String(grpc),
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_SIMULATOR_PORT: String(simulator),
    };
    first = await startLauncher(env);
    key = (await readFile(path.join(dataDir, 'demo-key.txt'), 'utf8')).trim();
  });
  after(async () => {
    await stopLauncher(first);
    await stopLauncher(second);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('binds the gateway to loopback, where its banner says it is', async function () {
    expect(first!.output).to.include(`gateway http://127.0.0.1:${httpPort},`);
    expect(await tcpAccepts(httpPort, '127.0.0.1')).to.equal(true);
    const external = externalIpv4();
    if (!external) this.skip();
    expect(await tcpAccepts(httpPort, external), `the gateway answers on ${external}`).to.equal(false);
  });

  it('prints the demo key on the start that created it', () => {
    expect(key).to.match(/^lfpk_/);
    expect(first!.output).to.include(key);
  });

  it("asks for a token on /metrics, kept in the data directory for the owner's eyes only", async () => {
    const base = `http://127.0.0.1:${httpPort}`;
    expect((await fetch(`${base}/metrics`)).status).to.equal(404);
    const tokenFile = path.join(dataDir, 'metrics-token.txt');
    expect((await stat(tokenFile)).mode & 0o777).to.equal(0o600);
    const token = (await readFile(tokenFile, 'utf8')).trim();
    expect(first!.output).to.include(tokenFile);
    expect(first!.output).to.not.include(token);
    const scrape = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(scrape.status).to.equal(200);
    expect(await scrape.text()).to.include('leadflow_http_requests_total');
  });

  it('on the next start, names the files instead of printing the key, and keeps the token', async () => {
    const tokenBefore = await readFile(path.join(dataDir, 'metrics-token.txt'), 'utf8');
    await stopLauncher(first);
    second = await startLauncher(env);
    expect(second.output).to.not.include(key);
    expect(second.output).to.include(`$(cat ${path.join(dataDir, 'demo-key.txt')})`);
    expect(await readFile(path.join(dataDir, 'metrics-token.txt'), 'utf8')).to.equal(tokenBefore);
  });
});
