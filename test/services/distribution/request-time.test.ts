import { Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { AdminServiceService } from '@leadflow/proto/leadflow/admin/v1/admin';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../support/distribution.js';
import { bearer, callWithBytes } from '../../support/grpc.js';
import { sqliteDatabase } from '../../support/test-database.js';

/** A varint's bytes, for hand-encoded requests. */
function varint(value: bigint): number[] {
  const bytes: number[] = [];
  let rest = BigInt.asUintN(64, value);
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  return [...bytes, Number(rest)];
}

/** A Timestamp field `field` of `seconds`: beyond what a Date holds, the client libraries cannot send it. */
function timestampField(field: number, seconds: bigint): number[] {
  const timestamp = [0x08, ...varint(seconds)];
  return [(field << 3) | 2, timestamp.length, ...timestamp];
}

const RANGE = 'must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z';

/** Seconds out of range, by what they are. */
const OUT_OF_RANGE: Record<string, bigint> = {
  'far in the future (9,000,000,000,000 s)': 9_000_000_000_000n,
  'just past 9999-12-31': 253_402_300_800n,
  'before 1970': -1n,
};

describe('admin requests: a time outside 1970 to 9999 is refused, saying so', () => {
  let stack: TestDistribution;
  let raw: Client;

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    raw = new Client(stack.address, credentials.createInsecure());
  });
  after(async () => {
    raw?.close();
    await stack?.close();
  });

  async function refusal(path: string, request: number[]): Promise<ServiceError> {
    return callWithBytes(raw, path, Buffer.from(request), bearer(stack.service.adminToken)).then(
      () => expect.fail(`${path} answered`),
      (error: ServiceError) => error,
    );
  }

  for (const [what, seconds] of Object.entries(OUT_OF_RANGE)) {
    it(`GetReport: start_time and end_time ${what}`, async () => {
      for (const [field, name] of [
        [7, 'start_time'],
        [8, 'end_time'],
      ] as const) {
        // group_by: REPORT_GROUPING_DAY
        const error = await refusal(AdminServiceService.getReport.path, [0x30, 3, ...timestampField(field, seconds)]);
        expect(error.code).to.equal(status.INVALID_ARGUMENT);
        expect(error.details).to.equal(`${name} ${RANGE}`);
        expect(readRichStatus(error.metadata)!.errorInfo!.reason).to.equal('INVALID_REPORT_REQUEST');
      }
    });

    it(`ListLeads: start_time and end_time ${what}`, async () => {
      for (const [field, name] of [
        [6, 'start_time'],
        [7, 'end_time'],
      ] as const) {
        const error = await refusal(AdminServiceService.listLeads.path, timestampField(field, seconds));
        expect(error.code).to.equal(status.INVALID_ARGUMENT);
        expect(error.details).to.equal(`${name} ${RANGE}`);
        expect(readRichStatus(error.metadata)!.errorInfo!.reason).to.equal('INVALID_LEAD_FILTER');
      }
    });
  }

  it('takes the last second of 9999 and the first of 1970', async () => {
    for (const seconds of [0n, 253_402_300_799n]) {
      const request = Buffer.from([0x30, 3, ...timestampField(7, seconds)]);
      await callWithBytes(raw, AdminServiceService.getReport.path, request, bearer(stack.service.adminToken));
      const filter = Buffer.from(timestampField(6, seconds));
      await callWithBytes(raw, AdminServiceService.listLeads.path, filter, bearer(stack.service.adminToken));
    }
  });
});
