import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { withTempDir } from '../../bench/temp-dir.js';
import { startTestDistribution, type TestDistribution } from '../../support/distribution.js';
import { freePort } from '../../support/ports.js';
import { runLeadflow, type StackCli, stackCli } from '../../support/run-leadflow.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';

describe('leadflow CLI against a running distribution service', () => {
  let database: TestDatabase;
  let stack: TestDistribution;
  let cli: StackCli;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database);
    cli = stackCli(stack);
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
  });

  const leadflow: StackCli['leadflow'] = (...args) => cli.leadflow(...args);
  const json: StackCli['json'] = (...argv) => cli.json(...argv);

  describe('publishers', () => {
    it('creates a publisher and prints exactly {id, key} with --json', async () => {
      const created = await json(
        'publisher',
        'create',
        '--name',
        'Acme Loans',
        '--rate-limit',
        '120',
        '--payout-share',
        '7500',
      );
      expect(Object.keys(created)).to.deep.equal(['id', 'key']);
      expect(created.key).to.match(/^lfpk_/);
      const { publishers } = await json('publisher', 'list');
      const listed = publishers.find((publisher: { id: string }) => publisher.id === created.id);
      expect(listed).to.include({ name: 'Acme Loans', rateLimitPerMinute: 120, payoutShareBps: 7500 });
      expect(listed.liveKeys).to.have.length(1);
      expect(listed.liveKeys[0].hint).to.equal(created.key.slice(-4));
    });

    it('refuses a second publisher of the same name, whatever its case, naming the first', async () => {
      const first = await json('publisher', 'create', '--name', 'Twin Media');
      const run = await leadflow(['publisher', 'create', '--name', '  twin MEDIA ']);
      expect(run).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: `leadflow: already exists: a publisher named "Twin Media" already exists (${first.id}): choose another name\n`,
      });
      const { publishers } = await json('publisher', 'list');
      expect(
        publishers.filter((publisher: { name: string }) => publisher.name.toLowerCase().trim() === 'twin media'),
      ).to.have.length(1);
    });

    it('prints the key once, with a warning, and lists publishers as a table', async () => {
      const run = await leadflow(['publisher', 'create', '--name', 'Table Co']);
      expect(run.code).to.equal(0);
      const key = /Key: (lfpk_\S+)/.exec(run.stdout)?.[1];
      expect(key).to.be.a('string');
      expect(run.stdout).to.include('shown only once');
      const list = await leadflow(['publisher', 'list']);
      expect(list.stdout).to.match(/^ID\s+NAME\s+RATE LIMIT\s+PAYOUT SHARE\s+CLAWBACK\s+LIVE KEYS$/m);
      expect(list.stdout).to.match(/Table Co\s+60\/min\s+8000 bps\s+full\s+key_\S+ \(…\S{4}\)/);
      expect(list.stdout).to.include(`…${key!.slice(-4)}`);
      expect(list.stdout).not.to.include(key!);
    });

    it("sets the clawback of a returned lead's payout: full by default, none, or a percentage", async () => {
      const { id } = await json('publisher', 'create', '--name', 'Absorbed', '--clawback', 'none');
      const [created] = (await json('publisher', 'list')).publishers.filter((p: { id: string }) => p.id === id);
      expect(created.clawbackBps, 'none: the network absorbs returns').to.equal(0);
      expect(await json('publisher', 'set-clawback', id, '37.5%')).to.include({ id, clawbackBps: 3750 });
      expect(await json('publisher', 'set-clawback', id, 'full')).to.include({ id, clawbackBps: 10_000 });
      const bad = await leadflow(['publisher', 'set-clawback', id, '120%']);
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include('TERMS must be full, none (absorbed by the network) or a percentage');
    });

    it('sets the rate limit', async () => {
      const { id } = await json('publisher', 'create', '--name', 'Limited');
      const updated = await json('publisher', 'set-rate-limit', id, '300');
      expect(updated).to.include({ id, rateLimitPerMinute: 300 });
      const text = await leadflow(['publisher', 'set-rate-limit', id, '90']);
      expect(text.stdout).to.include('now takes up to 90 leads per minute');
    });

    it('rotates to a second key, refuses a third, and revokes one', async () => {
      const created = await json('publisher', 'create', '--name', 'Rotating');
      const rotated = await json('publisher', 'rotate-key', created.id);
      expect(Object.keys(rotated)).to.deep.equal(['keyId', 'key']);
      expect(rotated.key).to.match(/^lfpk_/);
      expect(rotated.key).not.to.equal(created.key);

      const refused = await leadflow(['publisher', 'rotate-key', created.id]);
      expect(refused.code).to.equal(1);
      expect(refused.stdout).to.equal('');
      expect(refused.stderr).to.equal(
        'leadflow: failed precondition: publisher already holds 2 live keys: revoke one first\n',
      );

      const { publishers } = await json('publisher', 'list');
      const firstKeyId = publishers.find((publisher: { id: string }) => publisher.id === created.id).liveKeys[0].id;
      const revoked = await json('publisher', 'revoke-key', firstKeyId);
      expect(revoked.id).to.equal(firstKeyId);
      expect(Date.parse(revoked.revokeTime)).to.be.above(0);

      const after = await json('publisher', 'list');
      const liveKeys = after.publishers.find((publisher: { id: string }) => publisher.id === created.id).liveKeys;
      expect(liveKeys.map((key: { id: string }) => key.id)).to.deep.equal([rotated.keyId]);
      expect((await leadflow(['publisher', 'rotate-key', created.id])).code).to.equal(0);
    });

    it('reports an unknown publisher or key as not found, exit 1', async () => {
      const rotate = await leadflow(['publisher', 'rotate-key', 'pub_nope']);
      expect(rotate).to.deep.equal({ code: 1, stdout: '', stderr: 'leadflow: not found: no such publisher\n' });
      const revoke = await leadflow(['publisher', 'revoke-key', 'key_nope', '--json']);
      expect(revoke).to.deep.equal({ code: 1, stdout: '', stderr: 'leadflow: not found: no such key\n' });
    });

    it("passes on the service's own validation message", async () => {
      const run = await leadflow(['publisher', 'create', '--name', 'x'.repeat(201)]);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.equal('leadflow: invalid argument: name must be 1 to 200 characters\n');
    });
  });

  describe('leads', () => {
    it('reports an unknown lead as not found, exit 1', async () => {
      const run = await leadflow(['lead', 'show', 'lead_nope']);
      expect(run).to.deep.equal({ code: 1, stdout: '', stderr: 'leadflow: not found: no such lead\n' });
    });
  });

  describe('connection', () => {
    it("finds the local service's port and token through LEADFLOW_DATA_DIR, relative to the cwd", async () => {
      const run = await leadflow(['publisher', 'create', '--name', 'Found through the data dir', '--json'], {
        LEADFLOW_DATA_DIR: path.relative(process.cwd(), database.env.LEADFLOW_DATA_DIR),
        LEADFLOW_GRPC_PORT: String(stack.service.port),
      });
      expect(run.code).to.equal(0);
      const { publishers } = await json('publisher', 'list');
      expect(publishers.map((publisher: { id: string }) => publisher.id)).to.include(JSON.parse(run.stdout).id);
    });

    it('prefers --address to LEADFLOW_ADMIN_ADDRESS', async () => {
      const run = await leadflow(['buyer', 'list', '--address', stack.address], {
        LEADFLOW_ADMIN_ADDRESS: '127.0.0.1:1',
        LEADFLOW_ADMIN_TOKEN: stack.service.adminToken,
      });
      expect(run.code).to.equal(0);
    });

    it('refuses an address that is not HOST:PORT before anything connects, and takes a grpc-js target', async () => {
      const env = { LEADFLOW_ADMIN_TOKEN: stack.service.adminToken };
      for (const address of ['nonsense', '127.0.0.1', 'localhost:0', 'localhost:99999', 'host name:50051']) {
        expect(await leadflow(['buyer', 'list', '--address', address], env), address).to.deep.equal({
          code: 2,
          stdout: '',
          stderr:
            "leadflow: --address must be HOST:PORT, such as 127.0.0.1:50051\nRun 'leadflow buyer list --help' for usage.\n",
        });
      }
      expect(await leadflow(['buyer', 'list'], { ...env, LEADFLOW_ADMIN_ADDRESS: 'nonsense' })).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'leadflow: LEADFLOW_ADMIN_ADDRESS must be HOST:PORT, such as 127.0.0.1:50051\n',
      });
      const target = await leadflow(['buyer', 'list', '--address', `ipv4:${stack.address}`], env);
      expect(target.code, target.stderr).to.equal(0);
    });

    it('says so when no admin token can be found', async () => {
      const emptyDir = path.join(database.env.LEADFLOW_DATA_DIR, 'no-such-dir');
      const run = await leadflow(['publisher', 'list'], {
        LEADFLOW_DATA_DIR: emptyDir,
        LEADFLOW_GRPC_PORT: String(stack.service.port),
      });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(/^leadflow: no admin token: set LEADFLOW_ADMIN_TOKEN/);
      expect(run.stderr).to.include(path.join(emptyDir, 'secrets.json'));
    });

    it('reports an unreadable secrets file without quoting it', async () => {
      await withTempDir(async (dir) => {
        await writeFile(path.join(dir, 'secrets.json'), '{"adminToken": "lfadm_half-written');
        const run = await leadflow(['publisher', 'list'], { LEADFLOW_DATA_DIR: dir });
        expect(run).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: `leadflow: cannot read the admin token from ${path.join(dir, 'secrets.json')}: it is not valid JSON\n`,
        });
      });
    });

    it('reports a wrong token as permission denied, without printing either token', async () => {
      const run = await leadflow(['publisher', 'list'], {
        LEADFLOW_ADMIN_ADDRESS: stack.address,
        LEADFLOW_ADMIN_TOKEN: 'lfadm_not-the-token',
      });
      expect(run).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'leadflow: permission denied: admin token not accepted (token from LEADFLOW_ADMIN_TOKEN)\n',
      });
    });

    it('says clearly when the service does not answer', async () => {
      const address = `127.0.0.1:${await freePort()}`;
      const run = await leadflow(['publisher', 'list', '--json'], {
        LEADFLOW_ADMIN_ADDRESS: address,
        LEADFLOW_ADMIN_TOKEN: 'lfadm_any',
      });
      expect(run.code).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.equal(
        `leadflow: unavailable: cannot reach the leadflow service at ${address} in plaintext (is it running? set --address or LEADFLOW_ADMIN_ADDRESS; if it serves TLS, set --tls-ca or LEADFLOW_ADMIN_TLS_CA)\n`,
      );
    });
  });
});

describe('leadflow CLI usage', () => {
  // No service and no token: usage is checked before anything connects.
  /** The mistake's line; the second line must name the --help of `help` (the command, group or program). */
  const usageOf = async (...argv: string[]) => {
    const run = await runLeadflow(argv);
    expect(run.code, argv.join(' ')).to.equal(2);
    expect(run.stdout).to.equal('');
    const lines = run.stderr.split('\n');
    expect(lines, run.stderr).to.have.length(3);
    expect(lines[1]).to.match(/^Run 'leadflow( [a-z-]+)*( [a-z-]+)? --help' for usage\.$/);
    return lines[0];
  };
  const hintOf = async (...argv: string[]) => (await runLeadflow(argv)).stderr.split('\n')[1];

  it('prints the usage on stdout for --help and help, exit 0', async () => {
    for (const argv of [['--help'], ['help'], ['-h']]) {
      const run = await runLeadflow(argv);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(/^Usage: leadflow COMMAND/);
      expect(run.stdout).to.include('leadflow publisher create --name NAME [--rate-limit N] [--payout-share BPS]');
      expect(run.stdout).to.include('leadflow lead show LEAD_ID');
    }
  });

  it("prints a group's or a command's usage", async () => {
    const group = await runLeadflow(['publisher', '--help']);
    expect(group.code).to.equal(0);
    expect(group.stdout).to.include('leadflow publisher rotate-key PUBLISHER_ID');
    for (const argv of [
      ['help', 'buyer', 'apply'],
      ['buyer', 'apply', '--help'],
    ]) {
      const run = await runLeadflow(argv);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(/^Usage: leadflow buyer apply -f FILE \[--dry-run\] \[--json\]/);
      expect(run.stdout).to.include('FILE:LINE:COLUMN: PATH: MESSAGE');
    }
    const buyers = await runLeadflow(['buyer', '--help']);
    for (const command of [
      'apply -f FILE [--dry-run]',
      'list',
      'show ID_OR_NAME',
      'pause ID_OR_NAME',
      'resume ID_OR_NAME',
    ]) {
      expect(buyers.stdout).to.include(`leadflow buyer ${command}\n`);
    }
  });

  it('answers a bare leadflow with the whole usage on stderr, exit 2', async () => {
    const run = await runLeadflow([]);
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^leadflow: no command given\n\nUsage: leadflow COMMAND/);
  });

  it('names the --help of the command, group or program that was misused', async () => {
    expect(await hintOf('frobnicate')).to.equal("Run 'leadflow --help' for usage.");
    expect(await hintOf('publisher')).to.equal("Run 'leadflow publisher --help' for usage.");
    expect(await hintOf('publisher', 'destroy')).to.equal("Run 'leadflow publisher --help' for usage.");
    expect(await hintOf('publisher', 'create')).to.equal("Run 'leadflow publisher create --help' for usage.");
    expect(await hintOf('report', '--by', 'fortnight')).to.equal("Run 'leadflow report --help' for usage.");
  });

  it('answers a bad command line with one line naming the mistake and a hint to --help on stderr, exit 2', async () => {
    expect(await usageOf('frobnicate')).to.equal('leadflow: unknown command "frobnicate"');
    expect(await usageOf('publisher')).to.equal('leadflow: publisher: which command?');
    expect(await usageOf('publisher', 'destroy')).to.equal('leadflow: unknown command "publisher destroy"');
    expect(await usageOf('publisher', 'create')).to.equal('leadflow: --name is required');
    expect(await usageOf('publisher', 'create', '--name', 'x', '--colour', 'red')).to.match(
      /^leadflow: Unknown option '--colour'/,
    );
    expect(await usageOf('publisher', 'create', '--name', 'x', '--rate-limit', '0')).to.equal(
      'leadflow: --rate-limit must be a whole number from 1 to 1000000',
    );
    expect(await usageOf('publisher', 'create', '--name', 'x', '--rate-limit', '1000001')).to.equal(
      'leadflow: --rate-limit must be a whole number from 1 to 1000000',
    );
    expect(await usageOf('publisher', 'create', '--name', 'x', '--payout-share', '10001')).to.equal(
      'leadflow: --payout-share must be a whole number from 1 to 10000',
    );
    expect(await usageOf('publisher', 'create', '--name', 'x', '--rate-limit', '-5')).to.equal(
      'leadflow: --rate-limit must be a whole number from 1 to 1000000',
    );
    expect(await usageOf('publisher', 'set-rate-limit', 'pub_x', '-5')).to.equal(
      'leadflow: N must be a whole number from 1 to 1000000',
    );
    expect(await usageOf('lead', 'return', 'lead_x', '--reason', 'fraud', '--amount', '-5')).to.equal(
      'leadflow: --amount must be above 0',
    );
    expect(await usageOf('lead', 'resolve', 'lead_x', '--sold', '--price', '-42.50')).to.equal(
      'leadflow: --price must be above 0',
    );
    expect(await usageOf('lead', 'resolve', 'lead_x', '--sold', '--price', '0')).to.equal(
      'leadflow: --price must be above 0',
    );
    expect(await usageOf('lead', 'resolve', 'lead_x', '--not-sold', '-5')).to.equal(
      'leadflow: unexpected argument "-5"',
    );
    expect(await usageOf('pii', 'reencrypt', '--batch-size', '10001')).to.equal(
      'leadflow: --batch-size must be a whole number from 1 to 10000',
    );
    expect(await usageOf('publisher', 'create', '--name')).to.equal(
      "leadflow: Option '--name <value>' argument missing",
    );
    expect(await usageOf('publisher', 'rotate-key')).to.equal('leadflow: missing PUBLISHER_ID');
    expect(await usageOf('publisher', 'revoke-key', 'a', 'b')).to.equal('leadflow: unexpected argument "b"');
    expect(await usageOf('publisher', 'set-rate-limit', 'pub_x', 'lots')).to.equal(
      'leadflow: N must be a whole number from 1 to 1000000',
    );
    expect(await usageOf('buyer', 'apply')).to.equal('leadflow: --file is required');
    expect(await usageOf('buyer', 'upsert')).to.equal('leadflow: unknown command "buyer upsert"');
    expect(await usageOf('buyer', 'pause')).to.equal('leadflow: missing ID_OR_NAME');
    expect(await usageOf('lead', 'show', '--json')).to.equal('leadflow: missing LEAD_ID');
    expect(await usageOf('help', 'nonsense')).to.equal('leadflow: unknown command "nonsense"');
  });
});
