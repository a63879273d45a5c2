import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import {
  demoMarketConfigPath,
  loadSimulatorConfig,
  SimulatorConfigError,
  simulatorIntegration,
} from '../../services/simulator/index.js';
import { LEAD, rawPost } from './support.js';

const MAIN = path.resolve('services/simulator/main.ts');

const CONFIG_YAML = `
seed: 7
endpoints:
  - path: /yaml-lender/post
    kind: direct_post
    format: text
    price: { fixed: 11 }
  - path: /yaml-lender/hang
    kind: direct_post
    price: { fixed: 11 }
    errors: { hang: 1 }
`;

function runSimulator(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return line;
}

async function output(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
}

describe('simulator process (main.ts)', () => {
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'leadflow-simulator-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('serves a YAML config, prints its URL and stops on SIGTERM, hanging requests and all', async () => {
    const file = path.join(dir, 'market.yaml');
    await writeFile(file, CONFIG_YAML);
    const child = runSimulator(['--config', file, '--port', '0']);
    const exited = once(child, 'exit');
    try {
      const url = await firstLine(child);
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      const reply = await fetch(`${url}/yaml-lender/post`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(LEAD),
      });
      expect(await reply.text()).to.match(/^ACCEPTED\|11\.00\|SIM-\d{6}\|$/);
      const config = await (await fetch(`${url}/_simulator/config`)).json();
      expect(config.seed).to.equal(7);

      const hanging = rawPost(`${url}/yaml-lender/hang`, LEAD, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect((await hanging).error).to.not.equal(undefined);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('stops cleanly on a SIGTERM sent as soon as the URL appears', async () => {
    const file = path.join(dir, 'quick.yaml');
    await writeFile(file, CONFIG_YAML);
    const child = runSimulator(['--config', file]);
    const exited = once(child, 'exit');
    await firstLine(child);
    child.kill('SIGTERM');
    expect(await exited).to.deep.equal([0, null]);
  });

  it('exits 1 naming every mistake of a bad config', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        endpoints: [
          { path: '/a', kind: 'post', ping: '/b' },
          { path: '/c', kind: 'ping' },
        ],
      }),
    );
    const child = runSimulator(['--config', file]);
    const [stderr, [code]] = await Promise.all([output(child.stderr!), once(child, 'exit')]);
    expect(code).to.equal(1);
    expect(stderr).to.contain('endpoints[1].bid: must be an object');
  });

  it('exits 1 with its usage on bad arguments', async () => {
    for (const [args, message] of [
      [[], '--config is required'],
      [['--config', 'x.yaml', '--port', 'eighty'], '--port must be a port number'],
      [['--colour'], "Unknown option '--colour'"],
    ] as const) {
      const child = runSimulator([...args]);
      const [stderr, [code]] = await Promise.all([output(child.stderr!), once(child, 'exit')]);
      expect(code).to.equal(1);
      expect(stderr).to.contain(message).and.contain('usage:');
    }
  });

  it('loads a file that is neither JSON nor YAML as a config error', async () => {
    const file = path.join(dir, 'broken.yaml');
    await writeFile(file, 'endpoints: [\n');
    const error = await loadSimulatorConfig(file).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(SimulatorConfigError);
  });

  it('ships a valid demo market with a leadflow integration for each lender', async () => {
    const config = await loadSimulatorConfig(demoMarketConfigPath());
    const kinds = config.endpoints.map((endpoint) => endpoint.kind);
    expect(kinds).to.include.members(['direct_post', 'ping', 'post']);
    const lenders = config.endpoints.filter((endpoint) => endpoint.kind !== 'ping');
    expect(lenders.length).to.be.at.least(4);
    for (const lender of lenders) {
      const integration = simulatorIntegration('http://127.0.0.1:4100', config.endpoints, lender.path);
      expect(integration.post.url).to.equal(`http://127.0.0.1:4100${lender.path}`);
    }
  });
});
