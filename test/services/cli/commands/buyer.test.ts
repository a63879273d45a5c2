import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { buyerFixturePath } from '../../../support/buyer-fixtures.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { runLeadflow, type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

/** One entry of a document's `buyers:` list: a local direct-post buyer at a fixed price; `settings` are more keys. */
function buyerEntry(name: string, settings: string[] = [], post: string[] = []): string {
  return [
    `  - name: ${name}`,
    ...settings.map((line) => `    ${line}`),
    '    integration:',
    '      local: true',
    '      post:',
    '        url: http://127.0.0.1:9/post',
    ...post.map((line) => `        ${line}`),
    '        mapping: { first_name: firstName, "applicant.state": state }',
    '        response:',
    '          accepted: { path: "$.status", equals: "accepted" }',
    '    pricing: { type: fixed, price: "20.00" }',
    '',
  ].join('\n');
}

const documentOf = (...entries: string[]) => `buyers:\n${entries.join('')}`;

const ID = 'buy_\\S+';

describe('leadflow buyer commands against a running distribution service', () => {
  let database: TestDatabase;
  let stack: TestDistribution;
  let cli: StackCli;
  let dir: string;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database);
    cli = stackCli(stack);
    dir = await mkdtemp(path.join(tmpdir(), 'leadflow-cli-'));
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function writeDocument(name: string, text: string): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the JSON of `buyer list`, read field by field
  async function buyerNamed(name: string): Promise<any> {
    const { buyers } = await cli.json('buyer', 'list');
    return buyers.find((buyer: { name: string }) => buyer.name === name);
  }

  describe('apply', () => {
    it('creates the buyers of a YAML file, then reports them unchanged, then updated', async () => {
      const file = await writeDocument(
        'apply.yaml',
        documentOf(buyerEntry('apply-a'), buyerEntry('apply-b', ['tier: 2'])),
      );
      const created = await cli.leadflow(['buyer', 'apply', '-f', file]);
      expect(created.stderr).to.equal('');
      expect(created.code).to.equal(0);
      expect(created.stdout).to.match(new RegExp(`^created  apply-a  ${ID}\ncreated  apply-b  ${ID}\n$`));
      const [idA, idB] = created.stdout
        .split('\n')
        .slice(0, 2)
        .map((line) => line.split(/\s+/)[2]);

      const again = await cli.leadflow(['buyer', 'apply', '-f', file]);
      expect(again).to.deep.equal({
        code: 0,
        stderr: '',
        stdout: `unchanged  apply-a  ${idA}\nunchanged  apply-b  ${idB}\n`,
      });

      await writeDocument('apply.yaml', documentOf(buyerEntry('apply-a'), buyerEntry('apply-b', ['tier: 3'])));
      const changed = await cli.json('buyer', 'apply', '-f', file);
      expect(changed).to.deep.equal({
        buyers: [
          { id: idA, name: 'apply-a', action: 'APPLY_ACTION_UNCHANGED', paused: false },
          { id: idB, name: 'apply-b', action: 'APPLY_ACTION_UPDATED', paused: false },
        ],
        errors: [],
      });
      expect((await buyerNamed('apply-b')).tier).to.equal(3);
    });

    it("applies a document's tree, says so, and `buyer tree` shows each setting and where it comes from", async () => {
      const learned = await cli.leadflow(['buyer', 'tree']);
      expect(learned).to.deep.equal({
        code: 0,
        stderr: '',
        stdout:
          "routing:     strict_tiers  (LEADFLOW_ROUTING_MODE or its default)\nping window: learned from the bidders' answer times\n",
      });
      // What applies, as the text says: no mode the document never set, and where each setting comes from.
      const untouched = {
        applied: { tiers: [] },
        effective: { routing: 'ROUTING_MODE_STRICT_TIERS', tiers: [] },
        sources: { routing: 'environment', pingWindow: 'learned', tiers: [] },
      };
      expect(await cli.json('buyer', 'tree')).to.deep.equal(untouched);
      const tree = 'tree:\n  routing: price_groups\n  tiers:\n    - { tier: 2, pingWindowMs: 450 }\n';
      const file = await writeDocument('tree.yaml', `${tree}${documentOf(buyerEntry('tree-a'))}`);
      const dryRun = await cli.leadflow(['buyer', 'apply', '-f', file, '--dry-run']);
      expect(dryRun.stdout).to.match(/^would be created {2}tree-a {2}-\nwould be updated {2}tree settings \(/);
      const applied = await cli.leadflow(['buyer', 'apply', '-f', file]);
      expect(applied.stdout).to.match(
        new RegExp(`^created  tree-a  ${ID}\nupdated  tree settings \\(\`leadflow buyer tree\` shows them\\)\n$`),
      );
      expect((await cli.json('buyer', 'apply', '-f', file)).tree).to.equal('APPLY_ACTION_UNCHANGED');

      expect((await cli.leadflow(['buyer', 'tree'])).stdout).to.equal(
        [
          'routing:     price_groups  (buyers document)',
          "ping window: learned from the bidders' answer times",
          'tier 2:      ping window 450 ms  (buyers document)',
          '',
        ].join('\n'),
      );
      // A Duration as the proto JSON mapping writes it.
      const tiers = [{ tier: 2, pingWindow: '0.450s' }];
      expect(await cli.json('buyer', 'tree')).to.deep.equal({
        applied: { routing: 'ROUTING_MODE_PRICE_GROUPS', tiers },
        effective: { routing: 'ROUTING_MODE_PRICE_GROUPS', tiers },
        sources: { routing: 'document', pingWindow: 'learned', tiers: [{ tier: 2, pingWindow: 'document' }] },
      });

      const reset = await writeDocument('reset.yaml', 'tree: {}\n');
      expect((await cli.leadflow(['buyer', 'apply', '-f', reset])).stdout).to.equal(
        `No buyers in ${reset}.\nupdated  tree settings (\`leadflow buyer tree\` shows them)\n`,
      );
      expect((await cli.leadflow(['buyer', 'tree'])).stdout).to.equal(learned.stdout);
      expect(await cli.json('buyer', 'tree')).to.deep.equal(untouched);
    });

    it('places mistakes in the tree like those of buyers', async () => {
      const file = await writeDocument('bad-tree.yaml', 'tree:\n  routing: waterfall\n');
      const run = await cli.leadflow(['buyer', 'apply', '-f', file]);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.equal(
        `${file}:2:3: tree.routing: must be one of: strict_tiers, price_groups, auction\nleadflow: 1 mistake in ${file}; nothing was applied\n`,
      );
    });

    it('changes nothing with --dry-run, and says what would change', async () => {
      const file = await writeDocument('dry.yaml', documentOf(buyerEntry('dry-a')));
      const wouldCreate = await cli.leadflow(['buyer', 'apply', '-f', file, '--dry-run']);
      expect(wouldCreate).to.deep.equal({ code: 0, stderr: '', stdout: 'would be created  dry-a  -\n' });
      expect(await buyerNamed('dry-a')).to.equal(undefined);

      const created = await cli.json('buyer', 'apply', '-f', file);
      const id = created.buyers[0].id;
      await writeDocument('dry.yaml', documentOf(buyerEntry('dry-a', ['tier: 7'])));
      const wouldUpdate = await cli.leadflow(['buyer', 'apply', '--dry-run', '--file', file]);
      expect(wouldUpdate.stdout).to.equal(`would be updated  dry-a  ${id}\n`);
      expect((await buyerNamed('dry-a')).tier).to.equal(1);
    });

    it('reads JSON from stdin with -f -', async () => {
      const asJson = JSON.stringify(parse(documentOf(buyerEntry('stdin-a'))), null, 2);
      const run = await cli.leadflow(['buyer', 'apply', '-f', '-'], undefined, asJson);
      expect(run.stderr).to.equal('');
      expect(run.stdout).to.match(new RegExp(`^created  stdin-a  ${ID}\n$`));
    });

    it('prints every mistake as FILE:LINE:COL: PATH: MESSAGE, applies nothing and exits 1', async () => {
      const file = buyerFixturePath('cli-mistakes.yaml');
      const run = await cli.leadflow(['buyer', 'apply', '-f', file]);
      expect(run.code).to.equal(1);
      expect(run.stdout).to.equal('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines.pop()).to.equal(`leadflow: 3 mistakes in ${file}; nothing was applied`);
      // The service words the messages; the CLI places them.
      expect(lines.map((line) => line.replace(/(: \S+: ).*$/, '$1')).sort()).to.deep.equal([
        `${file}:12:5: buyers[1].tier: `,
        `${file}:13:5: buyers[1].colour: `,
        `${file}:16:9: buyers[1].integration.post.url: `,
      ]);
      expect(run.stderr).to.include('buyers[1].colour: unknown key');
      expect(run.stderr).to.include('https://');
      expect(await buyerNamed('mistake-ok')).to.equal(undefined);

      const json = await cli.leadflow(['buyer', 'apply', '-f', file, '--json']);
      expect(json.code).to.equal(1);
      expect(json.stderr).to.equal('');
      const answer = JSON.parse(json.stdout);
      // An empty list is there, as every field is.
      expect(answer.buyers).to.deep.equal([]);
      expect(answer.errors.find((error: { path: string }) => error.path === 'buyers[1].tier')).to.include({
        line: 12,
        column: 5,
      });
    });

    it('applies return terms, and refuses mistaken ones at their line and column', async () => {
      const good = await writeDocument(
        'returns.yaml',
        documentOf(
          buyerEntry('returns-a', [
            'returns:',
            '  windowDays: 7',
            '  reasons: [disconnected, fraud]',
            '  maxRate: { percent: 15, periodDays: 30 }',
          ]),
        ),
      );
      expect((await cli.leadflow(['buyer', 'apply', '-f', good])).code).to.equal(0);
      const shown = await cli.json('buyer', 'show', 'returns-a');
      expect(JSON.parse(shown.definitionJson ?? JSON.stringify(shown.definition)).returns).to.deep.equal({
        windowDays: 7,
        reasons: ['disconnected', 'fraud'],
        maxRate: { percent: 15, periodDays: 30 },
      });
      const bad = await writeDocument(
        'returns-bad.yaml',
        documentOf(
          buyerEntry('returns-b', [
            'returns:',
            '  windowDays: -1',
            '  reasons: [disconnected, Fraud!, disconnected]',
            '  maxRate: { percent: 150 }',
            '  window: 3',
          ]),
        ),
      );
      const run = await cli.leadflow(['buyer', 'apply', '-f', bad]);
      expect(run.code).to.equal(1);
      expect(run.stderr.trimEnd().split('\n').sort()).to.deep.equal([
        `${bad}:4:7: buyers[0].returns.windowDays: must be a whole number from 0 to 365`,
        `${bad}:5:31: buyers[0].returns.reasons[1]: must be a reason code: 1 to 64 lowercase letters, digits, "_" or "-"`,
        `${bad}:5:39: buyers[0].returns.reasons[2]: repeats the reason "disconnected"`,
        `${bad}:6:18: buyers[0].returns.maxRate.percent: must be a whole number from 1 to 100`,
        `${bad}:6:7: buyers[0].returns.maxRate.periodDays: is required`,
        `${bad}:7:7: buyers[0].returns.window: unknown key; expected one of: windowDays, reasons, maxRate`,
        `leadflow: 6 mistakes in ${bad}; nothing was applied`,
      ]);
    });

    it('--dry-run refuses a pattern the linear-time engine cannot run, at its place in the file', async () => {
      const file = buyerFixturePath('cli-patterns.yaml');
      const run = await cli.leadflow(['buyer', 'apply', '-f', file, '--dry-run']);
      expect(run.code).to.equal(1);
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines.pop()).to.equal(`leadflow: 3 mistakes in ${file}; nothing was applied`);
      expect(lines.sort()).to.deep.equal([
        `${file}:13:23: buyers[0].integration.post.response.accepted.path: uses a backreference or lookaround, which the linear-time engine (RE2 syntax) does not run`,
        `${file}:4:24: buyers[0].filters[0].pattern: uses a backreference or lookaround, which the linear-time engine (RE2 syntax) does not run`,
        `${file}:5:23: buyers[0].filters[1].pattern: is too complex for a buyer pattern (124 steps, at most 100): simplify it`,
      ]);
    });

    it('places a reference that does not resolve, then applies the file once the service has the values, storing none', async () => {
      const text = [
        'buyers:',
        '  - name: referencing',
        '    integration:',
        '      local: true',
        '      post:',
        '        url: "http://${env:ACME_TEST_HOST}/post"',
        '        headers: { X-Api-Key: "${secret:acme.key}" }',
        '        mapping: { state: state }',
        '        response: { accepted: { path: "$.status", equals: "accepted" } }',
        '    pricing: { type: fixed, price: "20.00" }',
        '',
      ].join('\n');
      const file = await writeDocument('references.yaml', text);
      const saved = { host: process.env.ACME_TEST_HOST, secrets: process.env.LEADFLOW_BUYER_SECRETS_FILE };
      delete process.env.ACME_TEST_HOST;
      delete process.env.LEADFLOW_BUYER_SECRETS_FILE;
      try {
        const run = await cli.leadflow(['buyer', 'apply', '-f', file]);
        expect(run).to.deep.equal({
          code: 1,
          stdout: '',
          stderr:
            `${file}:6:9: buyers[0].integration.post.url: \${env:ACME_TEST_HOST}: is not set in the distribution service's environment\n` +
            `${file}:7:20: buyers[0].integration.post.headers["X-Api-Key"]: \${secret:acme.key}: no secrets file is configured (LEADFLOW_BUYER_SECRETS_FILE)\n` +
            `leadflow: 2 mistakes in ${file}; nothing was applied\n`,
        });

        process.env.ACME_TEST_HOST = '127.0.0.1:9';
        process.env.LEADFLOW_BUYER_SECRETS_FILE = await writeDocument('secrets.yaml', 'acme:\n  key: key-secret-789\n');
        const applied = await cli.leadflow(['buyer', 'apply', '-f', file]);
        expect(applied.code, applied.stderr).to.equal(0);
        const shown = await cli.leadflow(['buyer', 'show', 'referencing']);
        // A URL's references as written; a header value redacted, reference or not.
        expect(shown.stdout).to.include('${env:ACME_TEST_HOST}');
        expect(shown.stdout).to.include('X-Api-Key: "[redacted]"');
        expect(shown.stdout).not.to.include('${secret:acme.key}');
        expect(shown.stdout).not.to.include('key-secret-789');
        const row = await stack.service.db
          .selectFrom('buyers')
          .select('definition')
          .where('name', '=', 'referencing')
          .executeTakeFirstOrThrow();
        expect(row.definition).to.include('${secret:acme.key}');
        expect(row.definition).not.to.include('key-secret-789');
      } finally {
        for (const [name, value] of [
          ['ACME_TEST_HOST', saved.host],
          ['LEADFLOW_BUYER_SECRETS_FILE', saved.secrets],
        ] as const) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
    });

    it('refuses NaN and infinite numbers at their place, with the other mistakes, applying nothing', async () => {
      const text = [
        'buyers:',
        '  - name: not-a-number',
        '    tier: .nan',
        '    priority: .inf',
        '    colour: red',
        '    caps: { leadsPerDay: .nan, spendPerDay: -.inf }',
        '    integration:',
        '      local: true',
        '      timeoutMs: .NaN',
        '      post:',
        '        url: http://127.0.0.1:9/post',
        '        mapping: { state: state }',
        '        response: { accepted: { path: "$.status", equals: "accepted" } }',
        '    pricing: { type: fixed, price: .inf }',
        '',
      ].join('\n');
      const file = await writeDocument('not-a-number.yaml', text);
      const BUYER_KEYS =
        'name, active, tier, priority, weight, integration, filters, schedule, caps, duplicates, pricing, payout, returns';
      const run = await cli.leadflow(['buyer', 'apply', '-f', file]);
      expect(run).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: [
          `${file}:3:5: buyers[0].tier: must be a finite number`,
          `${file}:4:5: buyers[0].priority: must be a finite number`,
          `${file}:5:5: buyers[0].colour: unknown key; expected one of: ${BUYER_KEYS}`,
          `${file}:6:13: buyers[0].caps.leadsPerDay: must be a finite number`,
          `${file}:6:32: buyers[0].caps.spendPerDay: must be a finite number`,
          `${file}:9:7: buyers[0].integration.timeoutMs: must be a finite number`,
          `${file}:14:29: buyers[0].pricing.price: must be a finite number`,
          `leadflow: 7 mistakes in ${file}; nothing was applied`,
          '',
        ].join('\n'),
      });
      expect(await buyerNamed('not-a-number')).to.equal(undefined);
      const json = await cli.leadflow(['buyer', 'apply', '-f', file, '--json']);
      expect(json.code).to.equal(1);
      expect(JSON.parse(json.stdout).errors).to.deep.include({
        path: 'buyers[0].tier',
        message: 'must be a finite number',
        line: 3,
        column: 5,
      });
      // A JSON number too large for a double is Infinity too.
      const huge = await cli.leadflow(['buyer', 'apply', '-f', '-'], undefined, '{"name": "huge", "weight": 1e400}');
      expect(huge.stderr).to.match(/^<stdin>:1:18: weight: must be a finite number$/m);
    });

    it('refuses a document over the 1 MiB the service takes, before connecting, and sends one at the limit', async () => {
      // The request: a tag byte, 3 bytes of length, the JSON, then 2 bytes for dryRun.
      const atLimit = (extra: number) =>
        JSON.stringify({ name: 'big', padding: 'x'.repeat(1024 * 1024 - 6 - 27 + extra) });
      const over = await writeDocument('over.json', atLimit(1));
      const refused = await runLeadflow(['buyer', 'apply', '-f', over], {
        LEADFLOW_DATA_DIR: path.join(dir, 'nowhere'),
      });
      expect(refused).to.deep.equal({
        code: 1,
        stdout: '',
        stderr:
          `${over}: the document makes a request of 1048577 bytes, over the 1 MiB (1048576 bytes) the service takes in one apply: split its buyers over several files (apply leaves alone the buyers a file does not name)\n` +
          `leadflow: 1 mistake in ${over}; nothing was applied\n`,
      });
      const limit = await writeDocument('limit.json', atLimit(0));
      const sent = await cli.leadflow(['buyer', 'apply', '-f', limit]);
      expect(sent.code).to.equal(1);
      expect(sent.stderr).to.include(`${limit}:1:15: padding: unknown key`);
    });

    it('places mistakes in a JSON document too', async () => {
      const document = {
        buyers: [{ name: 'json-bad', tier: 0, integration: {}, pricing: { type: 'fixed', price: '20.00' } }],
      };
      const run = await cli.leadflow(['buyer', 'apply', '-f', '-'], undefined, JSON.stringify(document, null, 2));
      expect(run.code).to.equal(1);
      // {, "buyers": [, {, "name", "tier" at line 5 column 7.
      expect(run.stderr).to.match(/^<stdin>:5:7: buyers\[0\]\.tier: /m);
      expect(run.stderr).to.match(/^<stdin>:6:7: buyers\[0\]\.integration(\.post)?: /m);
    });

    it('reports a YAML syntax error as a mistake at its line, before connecting to anything', async () => {
      const file = await writeDocument('broken.yaml', 'buyers:\n  - name: broken\n    tier: 1: 2\n');
      // No address and no token: the document is read before the CLI looks for either.
      const env = { LEADFLOW_DATA_DIR: path.join(dir, 'nowhere') };
      const run = await runLeadflow(['buyer', 'apply', '-f', file], env);
      expect(run).to.deep.equal({
        code: 1,
        stdout: '',
        stderr:
          `${file}:3:11: not valid YAML: Nested mappings are not allowed in compact mappings\n` +
          `leadflow: 1 mistake in ${file}; nothing was applied\n`,
      });
      const json = await runLeadflow(['buyer', 'apply', '-f', file, '--json'], env);
      expect(json.code).to.equal(1);
      expect(json.stderr).to.equal('');
      expect(JSON.parse(json.stdout)).to.deep.equal({
        buyers: [],
        errors: [
          {
            path: '',
            message: 'not valid YAML: Nested mappings are not allowed in compact mappings',
            line: 3,
            column: 11,
          },
        ],
      });
    });

    it('reports a repeated key, an alias bomb and an empty file in the shape of every mistake, with --json too', async () => {
      const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]'];
      for (let level = 'c'; level < 'h'; level = String.fromCharCode(level.charCodeAt(0) + 1)) {
        const below = String.fromCharCode(level.charCodeAt(0) - 1);
        bomb.push(`${level}: &${level} [${new Array(10).fill(`*${below}`).join(', ')}]`);
      }
      const cases = [
        {
          text: 'buyers:\n  - name: a\n    name: b\n',
          line: 3,
          column: 5,
          message: /^not valid YAML: Map keys must be unique$/,
        },
        { text: `${bomb.join('\n')}\n`, message: /^cannot be read: / },
        { text: '# nothing yet\n', message: /^the document is empty$/ },
      ];
      for (const [index, { text, line, column, message }] of cases.entries()) {
        const file = await writeDocument(`whole-file-${index}.yaml`, text);
        const run = await runLeadflow(['buyer', 'apply', '-f', file, '--json']);
        expect(run.code, text).to.equal(1);
        expect(run.stderr, text).to.equal('');
        const [error, ...others] = JSON.parse(run.stdout).errors;
        expect(others).to.deep.equal([]);
        const { message: printed, ...place } = error;
        expect(place).to.deep.equal(line === undefined ? { path: '' } : { path: '', line, column });
        expect(printed).to.match(message);
        const asText = await runLeadflow(['buyer', 'apply', '-f', file]);
        expect(asText.stderr).to.match(new RegExp(`\\n?leadflow: 1 mistake in ${file}; nothing was applied\\n$`));
      }
    });

    it('reports a file it cannot read', async () => {
      const missing = path.join(dir, 'missing.yaml');
      const run = await runLeadflow(['buyer', 'apply', '-f', missing]);
      expect(run).to.deep.equal({ code: 1, stdout: '', stderr: `leadflow: cannot read ${missing}: no such file\n` });
    });
  });

  describe('list, show, pause and resume', () => {
    let id: string;

    before(async () => {
      const file = await writeDocument(
        'shown.yaml',
        documentOf(
          buyerEntry(
            'shown-a',
            ['tier: 2', 'priority: 5', 'weight: 3'],
            ['headers: { X-Api-Key: hdr-secret-123 }', 'auth: { bearer: tok-secret-456 }'],
          ),
        ),
      );
      id = (await cli.json('buyer', 'apply', '-f', file)).buyers[0].id;
    });

    it('lists buyers as a table and as JSON', async () => {
      const run = await cli.leadflow(['buyer', 'list']);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(
        /^ID\s+NAME\s+STATUS\s+TIER\s+PRIORITY\s+WEIGHT\s+MODE\s+PRICING\s+POST HOST\s+CIRCUIT\s+TODAY \(LEADS \/ SPEND\)$/m,
      );
      expect(run.stdout).to.match(
        new RegExp(
          `^${id}\\s+shown-a\\s+active\\s+2\\s+5\\s+3\\s+direct_post\\s+fixed\\s+http://127\\.0\\.0\\.1:9\\s+closed\\s+0 / \\$0\\.00$`,
          'm',
        ),
      );
      expect(await buyerNamed('shown-a')).to.deep.include({
        id,
        active: true,
        tier: 2,
        priority: 5,
        weight: 3,
        mode: 'BUYER_MODE_DIRECT_POST',
        pricing: 'PRICING_FIXED',
        postHost: 'http://127.0.0.1:9',
        circuit: 'CIRCUIT_STATE_CLOSED',
        usage: { leadsThisHour: 0, leadsToday: 0, leadsThisMonth: 0, spendTodayCents: 0 },
      });
    });

    it('shows a buyer by name or id, with header values and credentials redacted', async () => {
      const run = await cli.leadflow(['buyer', 'show', 'shown-a']);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(new RegExp(`^id:\\s+${id}$`, 'm'));
      expect(run.stdout).to.match(/^status:\s+active$/m);
      expect(run.stdout).to.match(/^leads:\s+0 this hour, 0 today, 0 this month$/m);
      expect(run.stdout).to.match(/^definition:\n {2}name: shown-a\n/m);
      expect(run.stdout).to.match(/X-Api-Key: "?\[redacted\]"?/);
      expect(run.stdout).to.match(/auth: "?\[redacted\]"?/);

      const shown = await cli.json('buyer', 'show', id);
      expect(shown.summary).to.include({ id, name: 'shown-a', tier: 2 });
      expect(shown.definition.integration.post.headers).to.deep.equal({ 'X-Api-Key': '[redacted]' });
      expect(shown.definition.integration.post.auth).to.equal('[redacted]');
      expect(run.stdout + JSON.stringify(shown)).not.to.match(/hdr-secret-123|tok-secret-456/);
    });

    it('pauses and resumes a buyer by name or id', async () => {
      const paused = await cli.leadflow(['buyer', 'pause', 'shown-a']);
      expect(paused).to.deep.equal({
        code: 0,
        stderr: '',
        stdout: `Paused buyer "shown-a" (${id}): it is offered no more leads (within a second on every instance).\n`,
      });
      expect((await buyerNamed('shown-a')).active).to.equal(false);
      expect((await cli.leadflow(['buyer', 'show', id])).stdout).to.match(/^status:\s+paused$/m);

      const resumed = await cli.json('buyer', 'resume', id);
      expect(resumed).to.include({ id, name: 'shown-a', active: true });
      const text = await cli.leadflow(['buyer', 'resume', 'shown-a']);
      expect(text.stdout).to.equal(
        `Resumed buyer "shown-a" (${id}): it is offered leads again (within a second on every instance).\n`,
      );
    });

    it('reports an unknown buyer as not found, exit 1', async () => {
      for (const argv of [
        ['show', 'nobody'],
        ['pause', 'nobody'],
        ['resume', 'buy_nope', '--json'],
      ]) {
        const run = await cli.leadflow(['buyer', ...argv]);
        expect(run, argv.join(' ')).to.deep.equal({
          code: 1,
          stdout: '',
          stderr: 'leadflow: not found: no such buyer\n',
        });
      }
    });
  });
});
