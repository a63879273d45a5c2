import { expect } from 'chai';
import { buyerFixture } from '../../../support/buyer-fixtures.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { validLeadBody } from '../../../support/leads.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { type ScriptedLender, startScriptedLender } from '../../../support/scripted-lender.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

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
    expect(text).to.match(/^KIND\s+BUYER\s+STARTED\s+LATENCY\s+HTTP\s+OUTCOME\s+BID\s+PRICE\s+REFERENCE\s+REASON$/m);
    const time = '\\d{4}-\\d\\d-\\d\\dT\\S+Z';
    const latency = '\\d+\\.\\d ms';
    expect(text).to.match(
      new RegExp(`^skip\\s+trail-texas\\s+${time}\\s+-\\s+-\\s+skipped\\s+-\\s+-\\s+-\\s+filtered$`, 'm'),
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
