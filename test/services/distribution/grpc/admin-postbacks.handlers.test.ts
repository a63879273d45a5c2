import { type ServiceError, status } from '@grpc/grpc-js';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { sqliteDatabase } from '../../../support/test-database.js';

describe('admin API: ListPostbackDeliveries takes page_size as every list does', () => {
  let stack: TestDistribution;
  let publisherId: string;

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    ({ id: publisherId } = await stack.createPublisher());
  });
  after(() => stack?.close());

  const deliveries = (pageSize: number) =>
    call(
      stack.admin.listPostbackDeliveries.bind(stack.admin),
      { publisherId, pageSize },
      bearer(stack.service.adminToken),
    );

  it('refuses a negative page size with INVALID_ARGUMENT, INVALID_PAGE_SIZE', async () => {
    const error = await deliveries(-1).then(
      () => expect.fail('answered'),
      (failure: ServiceError) => failure,
    );
    expect(error.code).to.equal(status.INVALID_ARGUMENT);
    const details = readRichStatus(error.metadata)!;
    expect(details.errorInfo!.reason).to.equal('INVALID_PAGE_SIZE');
    expect(details.badRequest!.fieldViolations[0]).to.include({ field: 'page_size' });
  });

  it('answers 0 (the default) and sizes above the maximum', async () => {
    expect((await deliveries(0)).deliveries).to.deep.equal([]);
    expect((await deliveries(5000)).deliveries).to.deep.equal([]);
  });
});
