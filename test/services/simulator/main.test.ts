import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  demoMarketConfigPath,
  loadSimulatorConfig,
  SimulatorConfigError,
  simulatorIntegration,
} from '@leadflow/simulator';
import { expect } from 'chai';
import { LEAD, rawPost } from '../../support/simulator.js';
import { exited, killProcess, type RunningProcess, startProcess, stopProcess } from '../../support/source-process.js';

const MAIN = path.resolve('services/simulator/src/main.ts');

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

function runSimulator(args: string[]): RunningProcess {
  return startProcess(MAIN, {}, { args });
}

async function firstLine(simulator: RunningProcess): Promise<string> {
  const stdout = simulator.child.stdout!;
  const lines = createInterface({ input: stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  // Closing the interface paused the stream: the rest of the output is still kept, and the pipe can close.
  stdout.resume();
  return line;
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
    const simulator = runSimulator(['--config', file, '--port', '0']);
    try {
      const url = await firstLine(simulator);
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
      expect(await stopProcess(simulator)).to.equal(0);
      expect((await hanging).error).to.not.equal(undefined);
    } finally {
      await killProcess(simulator);
    }
  });

  it('stops cleanly on a SIGTERM sent as soon as the URL appears', async () => {
    const file = path.join(dir, 'quick.yaml');
    await writeFile(file, CONFIG_YAML);
    const simulator = runSimulator(['--config', file]);
    await firstLine(simulator);
    simulator.child.kill('SIGTERM');
    expect(await simulator.ended).to.deep.equal({ code: 0, signal: null });
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
    const simulator = runSimulator(['--config', file]);
    expect(await exited(simulator)).to.equal(1);
    expect(simulator.stderr.join('')).to.contain('endpoints[1].bid: must be an object');
  });

  it('exits 1 with its usage on bad arguments', async () => {
    for (const [args, message] of [
      [[], '--config is required'],
      [['--config', 'x.yaml', '--port', 'eighty'], '--port must be a port number'],
      [['--colour'], "Unknown option '--colour'"],
    ] as const) {
      const simulator = runSimulator([...args]);
      expect(await exited(simulator)).to.equal(1);
      expect(simulator.stderr.join('')).to.contain(message).and.contain('usage:');
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
