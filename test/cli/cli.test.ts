import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../bench/free-port.js';
import { withTempDir } from '../bench/temp-dir.js';
import { startTestDistribution, type TestDistribution } from '../support/distribution.js';
import { expect } from 'chai';
import { validLeadBody } from '../support/leads.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';
import { runLeadflow, type CliRun } from './run-leadflow.js';

describe('leadflow CLI against a running distribution service', () => {
  let database: TestDatabase;
  let stack: TestDistribution;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database);
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
  });

  /** Every run also checks that the admin token was printed nowhere. */
  async function leadflow(argv: string[], env?: Record<string, string>): Promise<CliRun> {
    const run = await runLeadflow(argv, env ?? { LEADFLOW_ADMIN_ADDRESS: stack.address, LEADFLOW_ADMIN_TOKEN: stack.service.adminToken });
    expect(run.stdout + run.stderr).not.to.include(stack.service.adminToken);
    return run;
  }

  async function json(...argv: string[]): Promise<any> {
    const run = await leadflow([...argv, '--json']);
    expect(run.stderr).to.equal('');
    expect(run.code).to.equal(0);
    return JSON.parse(run.stdout);
  }

  describe('publishers', () => {
    it('creates a publisher and prints exactly {id, key} with --json', async () => {
      const created = await json('publisher', 'create', '--name', 'Acme Loans', '--rate-limit', '120', '--payout-share', '7500');
      expect(Object.keys(created)).to.deep.equal(['id', 'key']);
      expect(created.key).to.match(/^lfpk_/);
      const { publishers } = await json('publisher', 'list');
      const listed = publishers.find((publisher: { id: string }) => publisher.id === created.id);
      expect(listed).to.include({ name: 'Acme Loans', rateLimitPerMinute: 120, payoutShareBps: 7500 });
      expect(listed.liveKeys).to.have.length(1);
      expect(listed.liveKeys[0].hint).to.equal(created.key.slice(-4));
    });

    it('prints the key once, with a warning, and lists publishers as a table', async () => {
      const run = await leadflow(['publisher', 'create', '--name', 'Table Co']);
      expect(run.code).to.equal(0);
      const key = /Key: (lfpk_\S+)/.exec(run.stdout)?.[1];
      expect(key).to.be.a('string');
      expect(run.stdout).to.include('shown only once');
      const list = await leadflow(['publisher', 'list']);
      expect(list.stdout).to.match(/^ID\s+NAME\s+RATE LIMIT\s+PAYOUT SHARE\s+LIVE KEYS$/m);
      expect(list.stdout).to.match(/Table Co\s+60\/min\s+8000 bps\s+key_\S+ \(…\S{4}\)/);
      expect(list.stdout).to.include(`…${key!.slice(-4)}`);
      expect(list.stdout).not.to.include(key!);
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
      expect(refused.stderr).to.equal('leadflow: failed precondition: publisher already holds 2 live keys: revoke one first\n');

      const { publishers } = await json('publisher', 'list');
      const firstKeyId = publishers.find((publisher: { id: string }) => publisher.id === created.id).liveKeys[0].id;
      const revoked = await json('publisher', 'revoke-key', firstKeyId);
      expect(revoked.id).to.equal(firstKeyId);
      expect(revoked.revokedAtMs).to.be.above(0);

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
      const run = await leadflow(['publisher', 'create', '--name', 'x', '--payout-share', '20000']);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.equal('leadflow: invalid argument: payout share must be 1 to 10000 basis points\n');
    });
  });

  describe('buyers', () => {
    it('upserts a buyer with dollar amounts as integer cents and lists it', async () => {
      const buyer = await json(
        'buyer', 'upsert', '--name', 'Lender A', '--price', '12.5', '--priority', '3', '--states', 'ca, tx',
        '--min-amount', '100', '--max-amount', '5000.75', '--post-url', 'https://lender-a.example/post',
        '--timeout-ms', '2500', '--redirect-url', 'https://lender-a.example/welcome',
      );
      expect(buyer).to.deep.include({
        name: 'Lender A',
        active: true,
        priority: 3,
        priceCents: 1250,
        states: ['CA', 'TX'],
        minLoanAmountCents: 10000,
        maxLoanAmountCents: 500075,
        postUrl: 'https://lender-a.example/post',
        testPostUrl: '',
        timeoutMs: 2500,
        redirectUrl: 'https://lender-a.example/welcome',
      });
      expect(buyer.id).to.be.a('string');

      const { buyers } = await json('buyer', 'list');
      expect(buyers.find((listed: { id: string }) => listed.id === buyer.id)).to.deep.equal(buyer);
      const text = await leadflow(['buyer', 'list']);
      expect(text.stdout).to.match(/Lender A\s+active\s+3\s+\$12\.50\s+CA,TX\s+\$100\.00 to \$5000\.75\s+2500 ms/);
    });

    it('replaces the settings of the buyer with the same name', async () => {
      const first = await json('buyer', 'upsert', '--name', 'Lender B', '--price', '20');
      const second = await json('buyer', 'upsert', '--name', 'Lender B', '--price', '0.05', '--paused');
      expect(second).to.include({ id: first.id, priceCents: 5, active: false, priority: 100, timeoutMs: 5000 });
      const text = await leadflow(['buyer', 'upsert', '--name', 'Lender B', '--price', '7']);
      expect(text.stdout).to.match(/^price:\s+\$7\.00$/m);
      expect(text.stdout).to.match(/^status:\s+active$/m);
    });

    it('refuses amounts that are not plain dollars before calling the service', async () => {
      for (const price of ['12.345', '$12', '-1', '1e3', 'twelve']) {
        // `--price=VALUE`: parseArgs refuses a separate value that starts with a dash.
        const run = await leadflow(['buyer', 'upsert', '--name', 'Lender C', `--price=${price}`]);
        expect(run.code, price).to.equal(2);
        expect(run.stderr, price).to.include('--price must be an amount in dollars');
      }
    });
  });

  describe('leads', () => {
    it('shows a stored lead with its sensitive fields masked', async () => {
      const { key } = await stack.createPublisher();
      await json('buyer', 'upsert', '--name', 'Buys everything', '--price', '50', '--priority', '0');
      const answer = await stack.submit(key, validLeadBody({ ssn: '123-45-6789' }));
      expect(answer.outcome?.$case).to.equal('sold');
      const leadId = answer.outcome?.$case === 'sold' ? answer.outcome.value.leadId : '';

      const lead = await json('lead', 'show', leadId);
      expect(lead).to.include({ leadId, status: 'sold', payoutCents: 4000 });
      expect(lead.fields.ssn).to.match(/^\*+6789$/);
      const text = await leadflow(['lead', 'show', leadId]);
      expect(text.stdout).to.match(/^status:\s+sold$/m);
      expect(text.stdout).to.match(/^payout:\s+\$40\.00$/m);
      expect(text.stdout).not.to.include('123-45-6789');
    });

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

    it('says so when no admin token can be found', async () => {
      const emptyDir = path.join(database.env.LEADFLOW_DATA_DIR, 'no-such-dir');
      const run = await leadflow(['publisher', 'list'], { LEADFLOW_DATA_DIR: emptyDir, LEADFLOW_GRPC_PORT: String(stack.service.port) });
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
      const run = await leadflow(['publisher', 'list'], { LEADFLOW_ADMIN_ADDRESS: stack.address, LEADFLOW_ADMIN_TOKEN: 'lfadm_not-the-token' });
      expect(run).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'leadflow: permission denied: admin token not accepted (token from LEADFLOW_ADMIN_TOKEN)\n',
      });
    });

    it('says clearly when the service does not answer', async () => {
      const address = `127.0.0.1:${await freePort()}`;
      const run = await leadflow(['publisher', 'list', '--json'], { LEADFLOW_ADMIN_ADDRESS: address, LEADFLOW_ADMIN_TOKEN: 'lfadm_any' });
      expect(run.code).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.equal(
        `leadflow: unavailable: cannot reach the leadflow service at ${address} (is it running? set --address or LEADFLOW_ADMIN_ADDRESS)\n`,
      );
    });
  });
});

describe('leadflow CLI usage', () => {
  // No service and no token: usage is checked before anything connects.
  const usageOf = async (...argv: string[]) => {
    const run = await runLeadflow(argv);
    expect(run.code, argv.join(' ')).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^leadflow: .+\n\nUsage: leadflow /);
    return run.stderr.split('\n')[0];
  };

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
    for (const argv of [['help', 'buyer', 'upsert'], ['buyer', 'upsert', '--help']]) {
      const run = await runLeadflow(argv);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(/^Usage: leadflow buyer upsert --name NAME --price DOLLARS/);
      expect(run.stdout).to.include('--paused');
    }
  });

  it('answers a bad command line with a message and the usage on stderr, exit 2', async () => {
    expect(await usageOf()).to.equal('leadflow: no command given');
    expect(await usageOf('frobnicate')).to.equal('leadflow: unknown command "frobnicate"');
    expect(await usageOf('publisher')).to.equal('leadflow: publisher: which command?');
    expect(await usageOf('publisher', 'destroy')).to.equal('leadflow: unknown command "publisher destroy"');
    expect(await usageOf('publisher', 'create')).to.equal('leadflow: --name is required');
    expect(await usageOf('publisher', 'create', '--name', 'x', '--colour', 'red')).to.match(/^leadflow: Unknown option '--colour'/);
    expect(await usageOf('publisher', 'create', '--name', 'x', '--rate-limit', '0')).to.equal(
      'leadflow: --rate-limit must be a whole number from 1 to 2147483647',
    );
    expect(await usageOf('publisher', 'create', '--name')).to.equal("leadflow: Option '--name <value>' argument missing");
    expect(await usageOf('publisher', 'rotate-key')).to.equal('leadflow: missing PUBLISHER_ID');
    expect(await usageOf('publisher', 'revoke-key', 'a', 'b')).to.equal('leadflow: unexpected argument "b"');
    expect(await usageOf('publisher', 'set-rate-limit', 'pub_x', 'lots')).to.equal(
      'leadflow: N must be a whole number from 1 to 2147483647',
    );
    expect(await usageOf('buyer', 'upsert', '--name', 'x')).to.equal('leadflow: --price is required');
    expect(await usageOf('lead', 'show', '--json')).to.equal('leadflow: missing LEAD_ID');
    expect(await usageOf('help', 'nonsense')).to.equal('leadflow: unknown command "nonsense"');
  });
});
