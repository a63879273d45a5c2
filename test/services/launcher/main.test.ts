import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startLauncher } from '../../support/launcher.js';
import { freePorts, tcpAccepts } from '../../support/ports.js';
import { type RunningProcess, stopProcess } from '../../support/source-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function stopLauncher(launcher: RunningProcess | undefined): Promise<void> {
  if (launcher) await stopProcess(launcher);
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
  let first: RunningProcess | undefined;
  let second: RunningProcess | undefined;
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
    expect(first!.output.join('')).to.include(`gateway http://127.0.0.1:${httpPort},`);
    expect(await tcpAccepts(httpPort, '127.0.0.1')).to.equal(true);
    const external = externalIpv4();
    if (!external) this.skip();
    expect(await tcpAccepts(httpPort, external), `the gateway answers on ${external}`).to.equal(false);
  });

  it('prints the demo key on the start that created it', () => {
    expect(key).to.match(/^lfpk_/);
    expect(first!.output.join('')).to.include(key);
  });

  it("asks for a token on /metrics, kept in the data directory for the owner's eyes only", async () => {
    const base = `http://127.0.0.1:${httpPort}`;
    expect((await fetch(`${base}/metrics`)).status).to.equal(404);
    const tokenFile = path.join(dataDir, 'metrics-token.txt');
    expect((await stat(tokenFile)).mode & 0o777).to.equal(0o600);
    const token = (await readFile(tokenFile, 'utf8')).trim();
    expect(first!.output.join('')).to.include(tokenFile);
    expect(first!.output.join('')).to.not.include(token);
    const scrape = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(scrape.status).to.equal(200);
    expect(await scrape.text()).to.include('leadflow_http_requests_total');
  });

  it("sends new leads with the docs' fresh-clickid command as written, leaving the fixture as it is", async () => {
    const fixtureFile = path.join(REPO_ROOT, 'test/fixtures/demo-lead.json');
    const fixture = await readFile(fixtureFile, 'utf8');
    const base = `http://127.0.0.1:${httpPort}`;
    const first = await fetch(`${base}/api/intake/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fixture,
    });
    const firstAnswer = (await first.json()) as { leadId: string };
    const snippets = await Promise.all(
      ['README.md', 'docs/getting-started.md'].map(async (page) => {
        const text = await readFile(path.join(REPO_ROOT, page), 'utf8');
        return /```sh\n(node -p [\s\S]*?)```/.exec(text)?.[1];
      }),
    );
    expect(snippets[0], 'the README has the command').to.be.a('string');
    expect(snippets[1]).to.equal(snippets[0]);
    const command = snippets[0]!
      .replaceAll('http://127.0.0.1:3000', base)
      .replaceAll('.leadflow/demo-key.txt', path.join(dataDir, 'demo-key.txt'));
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      const { stdout } = await promisify(execFile)('sh', ['-c', command], { cwd: REPO_ROOT });
      answers.push(JSON.parse(stdout) as { leadId: string; status: string });
    }
    const leadIds = new Set([firstAnswer.leadId, ...answers.map((answer) => answer.leadId)]);
    expect(leadIds.size, JSON.stringify(answers)).to.equal(3);
    for (const answer of answers) expect(answer.status).to.be.oneOf(['sold', 'rejected']);
    expect(await readFile(fixtureFile, 'utf8')).to.equal(fixture);
  });

  it('on the next start, names the files instead of printing the key, and keeps the token', async () => {
    const tokenBefore = await readFile(path.join(dataDir, 'metrics-token.txt'), 'utf8');
    await stopLauncher(first);
    second = await startLauncher(env);
    expect(second.output.join('')).to.not.include(key);
    expect(second.output.join('')).to.include(`$(cat ${path.join(dataDir, 'demo-key.txt')})`);
    expect(await readFile(path.join(dataDir, 'metrics-token.txt'), 'utf8')).to.equal(tokenBefore);
  });
});
