import { periodStarts } from '@leadflow/distribution/src/selling/buyer-usage';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { validLeadBody } from '../../../support/leads.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { startTestStack, type TestStack } from '../../../support/stack.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('leadflow buyer: paused state and usage', (database) => {
  let buyers: TestBuyerServer;
  let stack: TestStack;
  let cli: StackCli;
  let key: string;

  before(async function () {
    this.timeout(30_000);
    buyers = await startBuyerServer();
    buyers.behave('/uncapped', { kind: 'accept' });
    buyers.behave('/daily', { kind: 'accept' });
    stack = await startTestStack(database());
    cli = stackCli(stack.distribution);
    ({ key } = await stack.distribution.createPublisher());
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });

  it("counts a buyer's leads this hour, today and this month, and spend today, with or without caps on them", async () => {
    await stack.distribution.applyBuyers([
      testBuyer('uncapped', buyers.url('/uncapped'), { pricing: { type: 'fixed', price: '31.00' } }),
      testBuyer('daily-capped', buyers.url('/daily'), {
        tier: 2,
        caps: { leadsPerDay: 100 },
        pricing: { type: 'fixed', price: '20.00' },
      }),
    ]);
    for (let i = 0; i < 2; i += 1) expect((await stack.post(key, validLeadBody())).body.status).to.equal('sold');
    await cli.json('buyer', 'pause', 'uncapped');
    const third = (await stack.post(key, validLeadBody())).body;
    expect(third.status).to.equal('sold');
    await cli.json('buyer', 'resume', 'uncapped');

    const uncapped = await cli.json('buyer', 'show', 'uncapped');
    expect(uncapped.summary.usage).to.deep.equal({
      leadsThisHour: 2,
      leadsToday: 2,
      leadsThisMonth: 2,
      spendTodayCents: 6200,
    });
    const capped = await cli.json('buyer', 'show', 'daily-capped');
    expect(capped.summary.usage).to.deep.equal({
      leadsThisHour: 1,
      leadsToday: 1,
      leadsThisMonth: 1,
      spendTodayCents: 2000,
    });
    expect((await cli.leadflow(['buyer', 'show', 'uncapped'])).stdout).to.match(
      /^leads:\s+2 this hour, 2 today, 2 this month$/m,
    );
  });

  it('keeps a paused buyer paused when its file is applied again, and says so', async () => {
    await cli.json('buyer', 'pause', 'uncapped');
    const document = [
      testBuyer('uncapped', buyers.url('/uncapped'), { pricing: { type: 'fixed', price: '33.00' } }),
      testBuyer('daily-capped', buyers.url('/daily'), {
        tier: 2,
        caps: { leadsPerDay: 100 },
        pricing: { type: 'fixed', price: '20.00' },
      }),
    ];
    const run = await cli.leadflow(['buyer', 'apply', '-f', '-'], undefined, JSON.stringify({ buyers: document }));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^updated\s+uncapped\s+buy_\S+\s+paused$/m);
    expect(run.stdout).to.match(/^unchanged\s+daily-capped\s+buy_\S+$/m);
    expect(run.stdout).to.include(
      'uncapped stays paused: apply never resumes a buyer; `leadflow buyer resume uncapped` offers it leads again.',
    );
    const shown = await cli.json('buyer', 'show', 'uncapped');
    expect(shown.summary.active).to.equal(false);
    expect(shown.definition.pricing).to.deep.equal({ type: 'fixed', priceCents: 3300 });

    await cli.json('buyer', 'resume', 'uncapped');
    expect((await cli.json('buyer', 'show', 'uncapped')).summary.active).to.equal(true);
  });
});

describe('buyer usage periods', () => {
  it("start at the buyer's own hour, midnight and first of the month, half-hour zones included", () => {
    const now = new Date('2026-11-23T15:47:12.345Z');
    expect(periodStarts(now, 'UTC')).to.deep.equal({
      hour: Date.parse('2026-11-23T15:00:00Z'),
      day: Date.parse('2026-11-23T00:00:00Z'),
      month: Date.parse('2026-11-01T00:00:00Z'),
    });
    // 21:17 in Kolkata (+05:30): the hour began at 21:00 local, 15:30 UTC.
    expect(periodStarts(now, 'Asia/Kolkata')).to.deep.equal({
      hour: Date.parse('2026-11-23T15:30:00Z'),
      day: Date.parse('2026-11-22T18:30:00Z'),
      month: Date.parse('2026-10-31T18:30:00Z'),
    });
  });
});
