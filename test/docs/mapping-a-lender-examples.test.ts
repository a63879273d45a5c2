// docs/mapping-a-lender.md's "Trying a lender locally": the simulator's lender file and the buyer file, as
// written, sell a lead end to end: a real gateway and distribution service, the simulator as its own process.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { markedBlock } from '../support/doc-blocks.js';
import { freePort } from '../support/ports.js';
import { type StackCli, stackCli } from '../support/run-leadflow.js';
import { type RunningProcess, startProcess, stopProcess, waitForProcess } from '../support/source-process.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';
import { REPOSITORY_ROOT } from '../support/workspaces.js';

const PAGE = 'docs/mapping-a-lender.md';
const SIMULATOR_ENTRY = path.join(REPOSITORY_ROOT, 'services/simulator/src/main.ts');
/** Sends before giving up on a sale: the simulated lender bids on 4 leads in 5 and takes 9 posts in 10. */
const MAX_LEADS = 20;

/** The port the docs start the simulator on, which the buyer file's URLs name. */
function documentedPort(script: string): string {
  const port = /main\.js --config crestline\.sim\.yaml --port (\d+)/.exec(script)?.[1];
  if (!port) throw new Error(`${PAGE}: the simulator is not started with --config crestline.sim.yaml --port N`);
  return port;
}

describe("docs: trying a lender locally, with docs/mapping-a-lender.md's files as written", function () {
  this.timeout(120_000);
  let workDir: string;
  let database: TestDatabase;
  let stack: TestStack;
  let cli: StackCli;
  let simulator: RunningProcess | undefined;
  let simulatorUrl: string;
  let buyerFile: string;

  before(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'leadflow-lender-docs-'));
    const script = markedBlock(PAGE, 'try-crestline.sh');
    expect(script).to.include('npx leadflow buyer apply -f crestline.yaml');
    const simulatorFile = path.join(workDir, 'crestline.sim.yaml');
    await writeFile(simulatorFile, markedBlock(PAGE, 'crestline.sim.yaml'));

    // The docs' port may be taken on a shared machine: the simulator gets a free one, and the buyer file's
    // URLs, which must name the docs' port, are pointed at it.
    const port = await freePort();
    simulator = startProcess(SIMULATOR_ENTRY, {}, { args: ['--config', simulatorFile, '--port', String(port)] });
    // Its URL alone on the first line of stdout; a config it refuses ends it at once, saying why.
    await waitForProcess('the simulator', simulator, () => simulator!.stdout.join('').includes('\n'));
    simulatorUrl = simulator.stdout.join('').split('\n')[0]!.trim();
    expect(simulatorUrl).to.equal(`http://127.0.0.1:${port}`);

    const documentedOrigin = `http://127.0.0.1:${documentedPort(script)}/`;
    const buyers = markedBlock(PAGE, 'crestline.yaml');
    expect(
      buyers.split(documentedOrigin),
      'the ping and post URLs name the port the simulator starts on',
    ).to.have.length(3);
    buyerFile = path.join(workDir, 'crestline.yaml');
    await writeFile(buyerFile, buyers.replaceAll(documentedOrigin, `${simulatorUrl}/`));

    database = await sqliteDatabase();
    stack = await startTestStack(database);
    cli = stackCli(stack.distribution);
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
    if (simulator) await stopProcess(simulator);
    await rm(workDir, { recursive: true, force: true });
  });

  it('applies the buyer file, sells a lead to the simulated lender, and shows its bid, post and price', async () => {
    const applied = await cli.leadflow(['buyer', 'apply', '-f', buyerFile]);
    expect(applied.stderr).to.equal('');
    expect(applied.stdout).to.match(/^created\s+crestline\s+buy_/);

    const { key } = await stack.distribution.createPublisher();
    const demoLead = await readFile(path.join(REPOSITORY_ROOT, 'test/fixtures/demo-lead.json'), 'utf8');
    let sold: { leadId: string; price: number; redirectUrl: string } | undefined;
    for (let sent = 0; sent < MAX_LEADS && !sold; sent += 1) {
      // As the docs' sed: the demo lead with a clickid of its own.
      const body = demoLead.replace('demo-click-0001', `crestline-${sent}`);
      const answer = await stack.post(key, body);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body.status, JSON.stringify(answer.body)).to.be.oneOf(['sold', 'rejected']);
      if (answer.body.status === 'sold') sold = answer.body;
    }
    expect(sold, `one lead of ${MAX_LEADS} sold`).to.not.equal(undefined);
    expect(sold!.redirectUrl).to.match(/^https:\/\/apply\.crestline\.example\/SIM-\d{6}$/);

    const lead = await cli.json('lead', 'show', sold!.leadId);
    expect(lead.status).to.equal('LEAD_STATUS_SOLD');
    const attempt = (kind: string) =>
      lead.attempts.find((candidate: { kind: string }) => candidate.kind === `ATTEMPT_KIND_${kind}`);
    const ping = attempt('PING');
    expect(ping, 'the ping, read with the JSON reply parser').to.include({
      outcome: 'ATTEMPT_OUTCOME_ACCEPTED',
      httpStatus: 200,
    });
    expect(ping.reference).to.match(/^PING-\d{6}$/);
    expect(ping.bidCents).to.be.within(2000, 4500);
    const post = attempt('POST');
    expect(post, 'the post, which named the bid by ping_id, read with the XML reply parser').to.include({
      outcome: 'ATTEMPT_OUTCOME_ACCEPTED',
      httpStatus: 200,
      priceCents: ping.bidCents,
    });
    expect(post.reference).to.match(/^SIM-\d{6}$/);
    expect(Math.round(sold!.price * 100)).to.equal(lead.payoutCents);
    expect(lead.payoutCents, "the publisher's 80% of the price").to.be.closeTo(ping.bidCents * 0.8, 1);

    const shown = await cli.leadflow(['lead', 'show', sold!.leadId]);
    expect(shown.code).to.equal(0);
    expect(shown.stdout).to.include('crestline').and.to.include(post.reference);
  });

  it('got no personal data in any ping', async () => {
    const stats = (await (await fetch(`${simulatorUrl}/_simulator/stats`)).json()) as {
      endpoints: Record<string, { pings: number; piiPings: number; accepted: number }>;
    };
    expect(stats.endpoints['/crestline/ping']!.pings).to.be.greaterThan(0);
    expect(stats.endpoints['/crestline/ping']!.piiPings).to.equal(0);
    expect(stats.endpoints['/crestline/post']!.accepted).to.equal(1);
  });
});
