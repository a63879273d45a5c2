import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { heldLead } from '../../../support/selling.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

/** A buyer at `url` whose posts time out in 300 ms: each lead posted to it is held for it, unconfirmed. */
const silentBuyer = (name: string, url: string, settings: Record<string, unknown>) =>
  testBuyer(name, url, { ...settings, integration: { timeoutMs: 300 } });

describe('leadflow lead resolve: the price of a held lead', () => {
  let database: TestDatabase;
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let cli: StackCli;
  let publisherKey: string;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestDistribution(database);
    cli = stackCli(stack);
    buyers = await startBuyerServer();
    buyers.behave('/silent', { kind: 'hang' });
    publisherKey = (await stack.createPublisher()).key;
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });

  it('refuses --price for a buyer whose post carried its price, naming that price, and sells at it without', async () => {
    const fixed = { pricing: { type: 'fixed', price: '500.00' } };
    const leadId = await heldLead(stack, publisherKey, silentBuyer('fixed-500', buyers.url('/silent'), fixed));

    const refused = await cli.leadflow(['lead', 'resolve', leadId, '--sold', '--price', '600']);
    expect(refused).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        "leadflow: --price is only for a buyer that names its price in its answer: this lead's post carried the " +
        "buyer's price, $500.00; resolve it without --price\n",
    });
    expect((await cli.json('lead', 'show', leadId)).status, 'still held').to.equal('LEAD_STATUS_UNCONFIRMED');

    const sold = await cli.leadflow(['lead', 'resolve', leadId, '--sold']);
    expect(sold.code).to.equal(0);
    expect(sold.stdout).to.include("the publisher's payout is $400.00");
  });

  it('sells at --price for a buyer that names its price in its answer', async () => {
    const namesItsPrice = {
      pricing: { type: 'bid' },
      post: { response: { format: 'json', accepted: { path: '$.accepted', equals: 'true' }, price: '$.price' } },
    };
    const leadId = await heldLead(
      stack,
      publisherKey,
      silentBuyer('names-its-price', buyers.url('/silent'), namesItsPrice),
    );
    const resolved = await cli.json('lead', 'resolve', leadId, '--sold', '--price', '42.50');
    expect(resolved).to.include({ leadId, status: 'LEAD_STATUS_SOLD', payoutCents: 3400 });
  });
});
