import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { readRichStatus, retryDelayMs, STATUS_DETAILS_KEY } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { call } from '../../../support/grpc.js';
import { validLeadBody } from '../../../support/leads.js';
import { sqliteDatabase } from '../../../support/test-database.js';

/** The call's failure; fails the test when the call succeeds. */
async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: ServiceError) => error,
  );
}

describe('distribution service: the AIP-193 error model for direct callers', () => {
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let key: string;

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    buyers = await startBuyerServer();
    buyers.behave('/accept', { kind: 'accept' });
    await stack.applyBuyers([testBuyer('accepting', buyers.url('/accept'))]);
    ({ key } = await stack.createPublisher());
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });

  it('refuses an invalid lead with INVALID_ARGUMENT, a field violation per field by proto path, and ErrorInfo', async () => {
    const error = await failure(stack.submit(key, validLeadBody({ ssn: '000-12-3456', email: '', loanAmount: 1500 })));
    expect(error.code).to.equal(status.INVALID_ARGUMENT);
    const details = readRichStatus(error.metadata)!;
    expect(details.code).to.equal(status.INVALID_ARGUMENT);
    expect(details.errorInfo).to.deep.equal({ reason: 'INVALID_LEAD', domain: 'leadflow.io', metadata: {} });
    const violations = details.badRequest!.fieldViolations.map(({ field, description, reason }) => ({
      field,
      description,
      reason,
    }));
    expect(violations).to.have.deep.members([
      { field: 'lead.ssn', description: 'is not a valid Social Security number', reason: 'FIELD_INVALID' },
      { field: 'lead.email', description: 'is required', reason: 'FIELD_REQUIRED' },
      { field: 'lead.loan_amount', description: 'must be a string', reason: 'FIELD_NOT_A_STRING' },
    ]);
    expect(details.retryInfo).to.equal(undefined);
  });

  it('never echoes a submitted value in the details', async () => {
    const ssn = '000-12-3456';
    const error = await failure(stack.submit(key, validLeadBody({ ssn, dob: '1800-01-01' })));
    const raw = (error.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer).toString('latin1');
    expect(raw).to.not.include(ssn);
    expect(raw).to.not.include('1800-01-01');
  });

  it('answers a clickid reused with another body ALREADY_EXISTS, reason CLICKID_REUSED', async () => {
    const body = validLeadBody();
    const first = await stack.submit(key, body);
    expect(first.outcome?.$case).to.equal('sold');
    const error = await failure(stack.submit(key, { ...body, firstName: 'Someone' }));
    expect(error.code).to.equal(status.ALREADY_EXISTS);
    const details = readRichStatus(error.metadata)!;
    expect(details.errorInfo).to.include({ reason: 'CLICKID_REUSED', domain: 'leadflow.io' });
    expect(details.badRequest!.fieldViolations).to.have.length(1);
    expect(details.badRequest!.fieldViolations[0]).to.include({
      field: 'lead.clickid',
      description: 'was already used for a different lead',
      reason: 'CLICKID_REUSED',
    });
    const replay = await stack.submit(key, body);
    expect(replay.replayed).to.equal(true);
  });

  it('gives an unknown key UNAUTHENTICATED with a stable reason', async () => {
    const error = await failure(stack.submit(`lfpk_${'x'.repeat(43)}`, validLeadBody()));
    expect(error.code).to.equal(status.UNAUTHENTICATED);
    expect(readRichStatus(error.metadata)!.errorInfo).to.include({
      reason: 'INVALID_WEBMASTER_KEY',
      domain: 'leadflow.io',
    });
  });

  it('tells a missing admin token from a wrong one by reason', async () => {
    const missing = await failure(call(stack.admin.listPublishers.bind(stack.admin), { pageSize: 0, pageToken: '' }));
    expect(missing.code).to.equal(status.UNAUTHENTICATED);
    expect(readRichStatus(missing.metadata)!.errorInfo!.reason).to.equal('ADMIN_TOKEN_REQUIRED');
    const wrong = new Metadata();
    wrong.set('authorization', 'Bearer not-the-token');
    const refused = await failure(
      call(stack.admin.listPublishers.bind(stack.admin), { pageSize: 0, pageToken: '' }, wrong),
    );
    expect(refused.code).to.equal(status.PERMISSION_DENIED);
    expect(readRichStatus(refused.metadata)!.errorInfo!.reason).to.equal('ADMIN_TOKEN_REJECTED');
  });

  it('names the offending field of an admin request', async () => {
    const token = new Metadata();
    token.set('authorization', `Bearer ${stack.service.adminToken}`);
    const error = await failure(
      call(
        stack.admin.createPublisher.bind(stack.admin),
        { name: 'Too generous', rateLimitPerMinute: 0, payoutShareBps: 20_000 },
        token,
      ),
    );
    expect(error.code).to.equal(status.INVALID_ARGUMENT);
    expect(error.details).to.equal('payout share must be 1 to 10000 basis points');
    const violation = readRichStatus(error.metadata)!.badRequest!.fieldViolations[0]!;
    expect(violation).to.include({
      field: 'payout_share_bps',
      description: 'must be 1 to 10000 basis points',
      reason: 'FIELD_INVALID',
    });
  });

  it('decodes a RetryInfo delay from a Duration', () => {
    expect(retryDelayMs({ retryDelay: { seconds: 1, nanos: 250_000_000 } })).to.equal(1250);
  });
});
