import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { Lead, type SubmitLeadResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { validLeadBody } from '../../../support/leads.js';
import { sqliteDatabase } from '../../../support/test-database.js';

describe('intake: a retry while the first call is still selling the lead', () => {
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let key: string;

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    buyers = await startBuyerServer();
    ({ key } = await stack.createPublisher());
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });

  /** SubmitLead with the caller's own deadline, as a gRPC client that gives up on its call sets it. */
  const submitBy = (body: Partial<Lead>, deadlineMs: number): Promise<SubmitLeadResponse> =>
    new Promise((resolve, reject) =>
      stack.client.submitLead(
        { webmasterKey: key, lead: Lead.fromPartial(body), nonStringFields: [] },
        new Metadata(),
        { deadline: Date.now() + deadlineMs },
        (error, response) => (error ? reject(error) : resolve(response!)),
      ),
    );

  it('is not handed the first call’s own DEADLINE_TOO_SHORT: it sells the lead with its whole budget', async () => {
    // The first call's budget fits the quick, declining buyer's post but not the accepting buyer's: it ends
    // cut short by its caller (DEADLINE_TOO_SHORT) after the decline, while the retry is waiting on it.
    buyers.behave('/declines', { kind: 'reject', delayMs: 300 });
    buyers.behave('/accepts', { kind: 'accept', redirectUrl: 'https://lender.example/apply' });
    const ids = await stack.applyBuyers([
      testBuyer('declines', buyers.url('/declines'), {
        pricing: { type: 'fixed', price: '30.00' },
        integration: { timeoutMs: 2000 },
      }),
      testBuyer('accepts', buyers.url('/accepts'), {
        pricing: { type: 'fixed', price: '20.00' },
        integration: { timeoutMs: 8000 },
      }),
    ]);
    const body = validLeadBody() as Partial<Lead>;

    const first = submitBy(body, 1500).then(
      () => undefined,
      (error: ServiceError) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const retry = await submitBy(body, 30_000).catch((error: ServiceError) => {
      const info = readRichStatus(error.metadata)?.errorInfo;
      expect.fail(`the retry was refused: ${error.code} ${info?.reason} ${error.details}`);
    });

    expect(retry.outcome?.$case).to.equal('sold');
    expect(retry.outcome?.$case === 'sold' && retry.outcome.value.buyerId).to.equal(ids.accepts);
    expect((await first)?.details ?? '', 'the first call was cut short').to.match(/time|deadline/i);
    expect(buyers.received('/declines'), 'the declining buyer got the lead once').to.have.length(1);
    expect(buyers.received('/accepts'), 'the accepting buyer got the lead once').to.have.length(1);
  });
});
