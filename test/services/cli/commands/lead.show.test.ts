import { expect } from 'chai';
import { buyerFixture } from '../../../support/buyer-fixtures.js';
import { type BuyerBehaviour, startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { validLeadBody } from '../../../support/leads.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { type ScriptedLender, startScriptedLender } from '../../../support/scripted-lender.js';
import { heldLead, personLead } from '../../../support/selling.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';
import { waitUntil } from '../../../support/wait-until.js';

/**
 * Three buyers a California lead meets in order: trail-texas (tier 1) takes only Texas, trail-down (tier 1)
 * answers 500, trail-bidder (tier 2) bids $31.50 on the ping and accepts the post.
 */
function marketDocument(lender: ScriptedLender): string {
  return buyerFixture('texas-only-then-down-then-bidder.yaml', { LENDER_URL: lender.url('') });
}

describe('leadflow lead show: the audit trail', () => {
  let database: TestDatabase;
  let stack: TestDistribution;
  let lender: ScriptedLender;
  let cli: StackCli;
  const ids: Record<string, string> = {};

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database);
    cli = stackCli(stack);
    lender = await startScriptedLender({
      '/texas': { body: { status: 'accepted' } },
      '/down': { status: 500, body: { error: 'overloaded' } },
      '/ping': { body: { decision: 'bid', bid: '31.50', pingId: 'ping-42' } },
      '/post': { body: { decision: 'accepted', leadRef: 'ref-77' } },
    });
    const applied = await cli.leadflow(['buyer', 'apply', '-f', '-'], undefined, marketDocument(lender));
    expect(applied.stderr).to.equal('');
    for (const line of applied.stdout.trimEnd().split('\n')) {
      const [, name, id] = line.split(/\s+/);
      ids[name] = id;
    }
  });
  after(async () => {
    await stack?.close();
    await lender?.close();
    await database?.drop();
  });

  it('lists every ping, post and skip with its outcome, amounts in dollars, and masks personal fields', async () => {
    const { key } = await stack.createPublisher();
    const answer = await stack.submit(key, validLeadBody({ state: 'CA', ssn: '123-45-6789' }));
    expect(answer.outcome?.$case).to.equal('sold');
    const leadId = answer.outcome?.$case === 'sold' ? answer.outcome.value.leadId : '';

    const lead = await cli.json('lead', 'show', leadId);
    expect(lead).to.include({ leadId, status: 'LEAD_STATUS_SOLD', buyerId: ids['trail-bidder'], payoutCents: 2520 });
    // Durations as the proto JSON mapping writes them: seconds with 3, 6 or 9 fractional digits, or none.
    const duration = /^\d+(\.\d{3}|\.\d{6}|\.\d{9})?s$/;
    expect(lead.processingTime).to.match(duration);
    for (const { duration: taken } of lead.attempts as { duration: unknown }[]) expect(taken).to.match(duration);
    expect(lead.fields).to.include({
      ssn: '*****6789',
      firstName: 'M****',
      lastName: 'G*****',
      cellPhone: '******0188',
      city: 'San Francisco',
    });
    const attempt = (buyer: string, kind: string) =>
      lead.attempts.find(
        (candidate: { buyerId: string; kind: string }) =>
          candidate.buyerId === ids[buyer] && candidate.kind === `ATTEMPT_KIND_${kind}`,
      );
    expect(attempt('trail-texas', 'SKIP')).to.include({
      outcome: 'ATTEMPT_OUTCOME_SKIPPED',
      reason: 'filtered',
      httpStatus: 0,
    });
    expect(attempt('trail-down', 'POST')).to.include({ outcome: 'ATTEMPT_OUTCOME_ERROR', httpStatus: 500 });
    expect(attempt('trail-bidder', 'PING')).to.include({
      outcome: 'ATTEMPT_OUTCOME_ACCEPTED',
      httpStatus: 200,
      bidCents: 3150,
      reference: 'ping-42',
    });
    expect(attempt('trail-bidder', 'POST')).to.include({
      outcome: 'ATTEMPT_OUTCOME_ACCEPTED',
      httpStatus: 200,
      priceCents: 3150,
      reference: 'ref-77',
    });

    const run = await cli.leadflow(['lead', 'show', leadId]);
    expect(run.code).to.equal(0);
    const text = run.stdout;
    expect(text).to.match(/^status:\s+sold$/m);
    expect(text).to.match(new RegExp(`^buyer:\\s+trail-bidder \\(${ids['trail-bidder']}\\)$`, 'm'));
    expect(text).to.match(/^payout:\s+\$25\.20$/m);
    expect(text).to.match(
      /^KIND\s+BUYER\s+STARTED\s+LATENCY\s+HTTP\s+OUTCOME\s+BID\s+PRICE\s+REFERENCE\s+REASON\s+RESOLVED BY$/m,
    );
    const time = '\\d{4}-\\d\\d-\\d\\dT\\S+Z';
    const latency = '\\d+\\.\\d ms';
    expect(text).to.match(
      new RegExp(`^skip\\s+trail-texas\\s+${time}\\s+-\\s+-\\s+skipped\\s+-\\s+-\\s+-\\s+filtered\\s+-$`, 'm'),
    );
    expect(text).to.match(
      new RegExp(`^post\\s+trail-down\\s+${time}\\s+${latency}\\s+500\\s+error\\s+-\\s+-\\s+-\\s+\\S`, 'm'),
    );
    expect(text).to.match(
      new RegExp(
        `^ping\\s+trail-bidder\\s+${time}\\s+${latency}\\s+200\\s+accepted\\s+\\$31\\.50\\s+-\\s+ping-42\\s`,
        'm',
      ),
    );
    expect(text).to.match(
      new RegExp(
        `^post\\s+trail-bidder\\s+${time}\\s+${latency}\\s+200\\s+accepted\\s+-\\s+\\$31\\.50\\s+ref-77\\s`,
        'm',
      ),
    );
    for (const value of [
      '123-45-6789',
      '123456789',
      'Maria',
      'Garcia',
      'maria.garcia@example.com',
      '1200 Market St',
      '4155550123',
      '4155550188',
      '203.0.113.7',
    ]) {
      expect(text).not.to.include(value);
    }
  });
});

/** The sale's deadline; a late buyer's post timeout outlives it, the others' end well within it. */
const SELL_DEADLINE_MS = 1500;

/** A $500 buyer at `url` whose posts time out in 300 ms, unless `integration` says otherwise. */
const heldFor = (name: string, url: string, integration: Record<string, unknown> = {}) =>
  testBuyer(name, url, {
    pricing: { type: 'fixed', price: '500.00' },
    integration: { timeoutMs: 300, ...integration },
  });

describe("leadflow lead show: how a held lead's post was settled", () => {
  let database: TestDatabase;
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let cli: StackCli;
  let publisherKey: string;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database, {
      env: { LEADFLOW_SELL_DEADLINE_MS: String(SELL_DEADLINE_MS), LEADFLOW_RECONCILE_INTERVAL_MS: '100' },
    });
    cli = stackCli(stack);
    buyers = await startBuyerServer();
    buyers.behave('/silent', { kind: 'hang' });
    buyers.behave('/status', { kind: 'reject' });
    publisherKey = (await stack.createPublisher()).key;
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });

  /** The lead once settled: its post's line, as --json and as the text show it. */
  async function settledPost(leadId: string) {
    await waitUntil(
      'the held lead settled',
      async () => (await cli.json('lead', 'show', leadId)).status !== 'LEAD_STATUS_UNCONFIRMED',
      15_000,
    );
    const lead = await cli.json('lead', 'show', leadId);
    const text = (await cli.leadflow(['lead', 'show', leadId])).stdout;
    return {
      lead,
      post: lead.attempts.find((attempt: { kind: string }) => attempt.kind === 'ATTEMPT_KIND_POST'),
      line: text.split('\n').find((line) => line.startsWith('post ')) ?? '',
      header: text.split('\n').find((line) => line.startsWith('KIND ')) ?? '',
    };
  }

  it("shows an operator's sale: the post accepted at its price, resolved by the operator", async () => {
    const leadId = await heldLead(stack, publisherKey, heldFor('settled-by-operator', buyers.url('/silent')));
    expect((await cli.leadflow(['lead', 'resolve', leadId, '--sold'])).code).to.equal(0);

    const { lead, post, line, header } = await settledPost(leadId);
    expect(lead.status).to.equal('LEAD_STATUS_SOLD');
    expect(post).to.include({ outcome: 'ATTEMPT_OUTCOME_ACCEPTED', priceCents: 50000, resolvedBy: 'operator' });
    expect(header).to.match(/\sREASON\s+RESOLVED BY$/);
    expect(line).to.match(/\saccepted\s+-\s+\$500\.00\s.*\soperator$/);
  });

  it("shows the buyer's status lookup: the post rejected, resolved by status_lookup", async () => {
    const leadId = await heldLead(
      stack,
      publisherKey,
      heldFor('settled-by-lookup', buyers.url('/silent'), {
        statusLookup: {
          url: buyers.url('/status'),
          mapping: { ref: 'attemptId' },
          response: { format: 'json', accepted: { path: '$.accepted', equals: 'true' } },
        },
      }),
    );
    const { lead, post, line } = await settledPost(leadId);
    expect(lead).to.include({ status: 'LEAD_STATUS_REJECTED', reason: 'No buyer accepted the lead' });
    expect(post).to.include({ outcome: 'ATTEMPT_OUTCOME_REJECTED', resolvedBy: 'status_lookup' });
    expect(line).to.match(/\srejected\s.*\sstatus_lookup$/);
  });

  it("shows the buyer's settleAfter: the post rejected, resolved by settle_after", async () => {
    const leadId = await heldLead(
      stack,
      publisherKey,
      heldFor('settled-after', buyers.url('/silent'), { settleAfter: '1s' }),
    );
    const { lead, post, line } = await settledPost(leadId);
    expect(lead.status).to.equal('LEAD_STATUS_REJECTED');
    expect(lead.reason, 'the buyer never answered: its settleAfter closed the lead').to.equal(
      'The buyer did not confirm the lead within its settlement time; the lead was closed as not sold',
    );
    expect(post).to.include({ outcome: 'ATTEMPT_OUTCOME_REJECTED', resolvedBy: 'settle_after' });
    expect(line).to.match(/\srejected\s.*\ssettle_after$/);
  });

  it("shows the buyer's late answer: the post accepted, resolved by late_answer", async () => {
    let answer: (behaviour: BuyerBehaviour) => void = () => undefined;
    buyers.behave('/late', { kind: 'later', answer: new Promise((resolve) => (answer = resolve)) });
    const leadId = await heldLead(
      stack,
      publisherKey,
      heldFor('settled-late', buyers.url('/late'), { timeoutMs: SELL_DEADLINE_MS * 3 }),
    );
    answer({ kind: 'accept' });

    const { lead, post, line } = await settledPost(leadId);
    expect(lead.status).to.equal('LEAD_STATUS_SOLD');
    expect(post).to.include({ outcome: 'ATTEMPT_OUTCOME_ACCEPTED', priceCents: 50000, resolvedBy: 'late_answer' });
    expect(line).to.match(/\saccepted\s.*\slate_answer$/);
  });

  it('shows no resolver for a post answered in time', async () => {
    buyers.behave('/accepts', { kind: 'accept' });
    await stack.applyBuyers([heldFor('answers-in-time', buyers.url('/accepts'))]);
    const answer = await stack.submit(publisherKey, personLead());
    const leadId = answer.outcome?.$case === 'sold' ? answer.outcome.value.leadId : '';
    const { post, line } = await settledPost(leadId);
    expect(post).to.include({ outcome: 'ATTEMPT_OUTCOME_ACCEPTED', resolvedBy: '' });
    expect(line).to.match(/\saccepted\s.*\s-$/);
  });
});
