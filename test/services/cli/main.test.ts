import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../support/distribution.js';
import type { CliRun } from '../../support/run-leadflow.js';
import { startProcess } from '../../support/source-process.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `leadflow ARGS` as a real process from the repository root, with none of this process's LEADFLOW_ settings, fed `stdin`. */
async function spawnLeadflow(argv: string[], env: Record<string, string>, stdin = ''): Promise<CliRun> {
  const leadflow = startProcess('services/cli/src/main.ts', env, {
    args: argv,
    cwd: REPO_ROOT,
    inherits: (name) => !name.startsWith('LEADFLOW_'),
    stdin,
  });
  const { code } = await leadflow.ended;
  return { code: code!, stdout: leadflow.stdout.join(''), stderr: leadflow.stderr.join('') };
}

describe('leadflow bin as a process', () => {
  let database: TestDatabase;
  let stack: TestDistribution;
  let env: Record<string, string>;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database);
    // What a local `npm start` leaves behind: the port and the data directory's secrets, no token in the environment.
    env = { LEADFLOW_DATA_DIR: database.env.LEADFLOW_DATA_DIR, LEADFLOW_GRPC_PORT: String(stack.service.port) };
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
  });

  it('creates a publisher with no setup beyond the local service', async () => {
    const run = await spawnLeadflow(['publisher', 'create', '--name', 'Spawned', '--json'], env);
    expect(run.stderr).to.equal('');
    expect(run.code).to.equal(0);
    const created = JSON.parse(run.stdout);
    expect(Object.keys(created)).to.deep.equal(['id', 'key']);
    expect(created.key).to.match(/^lfpk_/);
  });

  it('reads a buyers document from its standard input with -f -', async () => {
    const document = {
      buyers: [
        {
          name: 'piped',
          integration: {
            local: true,
            post: {
              url: 'http://127.0.0.1:9/post',
              mapping: { first_name: 'firstName' },
              response: { accepted: { path: '$.status', equals: 'accepted' } },
            },
          },
          pricing: { type: 'fixed', price: '20.00' },
        },
      ],
    };
    const run = await spawnLeadflow(['buyer', 'apply', '-f', '-', '--dry-run'], env, JSON.stringify(document));
    expect(run).to.deep.equal({ code: 0, stdout: 'would be created  piped  -\n', stderr: '' });
  });

  it('exits 1 with one line on stderr when a call fails', async () => {
    const run = await spawnLeadflow(['lead', 'show', 'lead_nope'], env);
    expect(run).to.deep.equal({ code: 1, stdout: '', stderr: 'leadflow: not found: no such lead\n' });
  });

  it('is built as an executable that npx and a shell can run (npm test builds first)', async () => {
    const { bin } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(bin).to.have.property('leadflow');
    const run = await promisify(execFile)(path.join(REPO_ROOT, bin.leadflow!), ['--help'], {
      env: { PATH: process.env.PATH },
    });
    expect(run.stdout).to.match(/^Usage: leadflow COMMAND/m);
  });
});
