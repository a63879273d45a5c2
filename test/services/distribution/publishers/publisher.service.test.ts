import { type ServiceError, status } from '@grpc/grpc-js';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { sqliteDatabase } from '../../../support/test-database.js';

describe("publishers: a publisher's name follows the lead's rules for free text", () => {
  let stack: TestDistribution;

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
  });
  after(() => stack?.close());

  const create = (name: string) =>
    call(
      stack.admin.createPublisher.bind(stack.admin),
      { name, rateLimitPerMinute: 0, payoutShareBps: 0, clawbackBps: undefined },
      bearer(stack.service.adminToken),
    );

  const names = async () =>
    (
      await call(
        stack.admin.listPublishers.bind(stack.admin),
        { pageSize: 0, pageToken: '' },
        bearer(stack.service.adminToken),
      )
    ).publishers.map((publisher) => publisher.name);

  for (const [what, name, description] of [
    ['a NUL and a line feed', 'a\u0000b\nc', 'must not contain control characters'],
    [
      'a right-to-left override',
      'Acme\u202Eevil',
      'must not contain invisible formatting characters (direction controls, zero-width characters)',
    ],
  ]) {
    it(`refuses a name with ${what} with INVALID_ARGUMENT naming the field, and stores nothing`, async () => {
      const error = await create(name!).then(
        () => expect.fail('the publisher was created'),
        (failure: ServiceError) => failure,
      );
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
      expect(error.details).to.equal(`name ${description}`);
      expect(readRichStatus(error.metadata)!.badRequest!.fieldViolations).to.deep.equal([
        { field: 'name', description, reason: 'FIELD_INVALID', localizedMessage: undefined },
      ]);
      expect(await names()).not.to.include(name);
    });
  }

  it('takes a name in any script, as a lead takes one', async () => {
    await create('Société Générale Leads 日本');
    expect(await names()).to.include('Société Générale Leads 日本');
  });
});
