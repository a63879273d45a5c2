import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { AdminServiceService } from '@leadflow/proto/leadflow/admin/v1/admin';
import { DistributionServiceService } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer } from '../../../support/grpc.js';
import { sqliteDatabase } from '../../../support/test-database.js';

const bytes = (hex: string) => Buffer.from(hex.replace(/ /g, ''), 'hex');

/** Requests whose bytes are no protobuf message, by what is wrong with them. */
const MALFORMED: Record<string, Buffer> = {
  'a varint that never ends': bytes('ff ff ff ff ff ff ff ff ff ff'),
  'a length past the data': bytes('0a 7f 41'),
  'wire type 7': bytes('0f 01'),
  '100,000 bytes of nested groups': Buffer.alloc(100_000, 0x0b),
};

/** 2^63 - 1 and -2^63 as varints. */
const INT64_MAX = 'ff ff ff ff ff ff ff ff 7f';
const INT64_MIN = '80 80 80 80 80 80 80 80 80 01';

describe('gRPC: requests whose bytes cannot be read', () => {
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

  /** The failure of a call of `path` with `request` as its bytes; fails the test when it succeeds. */
  function send(path: string, request: Buffer, metadata = new Metadata()): Promise<ServiceError> {
    return new Promise((resolve, reject) => {
      raw.makeUnaryRequest(
        path,
        (message: Buffer) => message,
        (message: Buffer) => message,
        request,
        metadata,
        { deadline: Date.now() + 10_000 },
        (error) => (error ? resolve(error) : reject(new Error(`${path} succeeded`))),
      );
    });
  }

  function expectMalformed(error: ServiceError): void {
    expect(error.code, error.details).to.equal(status.INVALID_ARGUMENT);
    const details = readRichStatus(error.metadata);
    expect(details?.errorInfo).to.deep.equal({ reason: 'MALFORMED_REQUEST', domain: 'leadflow.io', metadata: {} });
  }

  for (const [what, request] of Object.entries(MALFORMED)) {
    it(`answers ${what} INVALID_ARGUMENT, MALFORMED_REQUEST, on the distribution and the admin service`, async () => {
      expectMalformed(await send(DistributionServiceService.submitLead.path, request));
      expectMalformed(await send(DistributionServiceService.getLeadStatus.path, request));
      const admin = bearer(stack.service.adminToken);
      expectMalformed(await send(AdminServiceService.createPublisher.path, request, admin));
      expectMalformed(await send(AdminServiceService.listLeads.path, request, admin));
    });
  }

  it('answers an int64 beyond ±2^53 INVALID_ARGUMENT, saying which values are read', async () => {
    const admin = bearer(stack.service.adminToken);
    const requests: [string, Buffer][] = [
      // ResolveLead{lead_id: "x", charge_cents: 2^63 - 1}
      [AdminServiceService.resolveLead.path, bytes(`0a 01 78 18 ${INT64_MAX}`)],
      // ReturnLead{request_id: "x", lead_id: "x", reason: "x", credit_cents: -2^63}
      [AdminServiceService.returnLead.path, bytes(`0a 01 78 12 01 78 2a 01 78 38 ${INT64_MIN}`)],
      // ListLeads{start_time: {seconds: 2^63 - 1}}
      [AdminServiceService.listLeads.path, bytes(`32 0a 08 ${INT64_MAX}`)],
    ];
    for (const [path, request] of requests) {
      const error = await send(path, request, admin);
      expectMalformed(error);
      expect(error.details).to.include('2^53');
    }
  });

  it('still checks the caller first: an admin call without the token is UNAUTHENTICATED, whatever its bytes', async () => {
    const error = await send(AdminServiceService.createPublisher.path, MALFORMED['wire type 7']!);
    expect(error.code).to.equal(status.UNAUTHENTICATED);
  });
});
