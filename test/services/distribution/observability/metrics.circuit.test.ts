import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { validLeadBody } from '../../../support/leads.js';
import { sampled, scrape } from '../../../support/metrics-text.js';
import { startTestStack, type TestStack } from '../../../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

/** A buyer that only fails has its circuit opened at this failure (DEFAULT_CIRCUIT_BREAKER). */
const FAILURE_THRESHOLD = 5;

describe('observability: circuit breaker metrics after a failing buyer', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let stack: TestStack;

  before(async () => {
    database = await sqliteDatabase();
    buyers = await startBuyerServer();
    buyers.behave('/broken', { kind: 'status', status: 500 });
    stack = await startTestStack(database);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });

  it('shows the circuit open (2) once the buyer failed enough, and the leads that skipped it', async () => {
    const { broken } = await stack.distribution.applyBuyers([testBuyer('broken', buyers.url('/broken'))]);
    const { key } = await stack.distribution.createPublisher();
    const metrics = async () =>
      (await scrape(`http://127.0.0.1:${stack.distribution.service.metricsPort}/metrics`)).text;

    await stack.post(key, validLeadBody());
    expect(sampled(await metrics(), 'leadflow_circuit_state', { buyer_id: broken! })).to.equal(0);

    for (let i = 1; i <= FAILURE_THRESHOLD; i++) await stack.post(key, validLeadBody());
    const text = await metrics();
    expect(sampled(text, 'leadflow_circuit_state', { buyer_id: broken! })).to.equal(2);
    expect(
      sampled(text, 'leadflow_buyer_attempts_total', { buyer_id: broken!, kind: 'post', outcome: 'error' }),
    ).to.equal(FAILURE_THRESHOLD);
    expect(sampled(text, 'leadflow_buyer_skips_total', { buyer_id: broken!, reason: 'circuit_open' })).to.equal(1);
    expect(sampled(text, 'leadflow_leads_total', { outcome: 'rejected', test: 'false' })).to.equal(
      FAILURE_THRESHOLD + 1,
    );
  });
});
