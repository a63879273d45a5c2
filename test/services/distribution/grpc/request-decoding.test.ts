import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { AdminServiceService, CreatePublisherRequest } from '@leadflow/proto/leadflow/admin/v1/admin';
import {
  DistributionServiceService,
  Lead,
  SubmitLeadRequest,
  SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, callWithBytes } from '../../../support/grpc.js';
import { validLeadBody } from '../../../support/leads.js';
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

/** Stands for a string field's bytes in an encoded request: as many bytes as the ones put in its place. */
const PLACEHOLDER = '\u0001\u0002\u0003\u0004';

/** An encoded request with the bytes of its PLACEHOLDER value replaced by `text`, four bytes. */
function withTextBytes(encoded: Uint8Array, text: string): Buffer {
  const request = Buffer.from(encoded);
  const at = request.indexOf(PLACEHOLDER);
  expect(at).to.be.at.least(0);
  bytes(text).copy(request, at);
  return request;
}

describe('gRPC: requests whose bytes cannot be read', () => {
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let raw: Client;

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    buyers = await startBuyerServer();
    buyers.behave('/accept', { kind: 'accept' });
    await stack.applyBuyers([testBuyer('accepting', buyers.url('/accept'))]);
    raw = new Client(stack.address, credentials.createInsecure());
  });
  after(async () => {
    raw?.close();
    await stack?.close();
    await buyers?.close();
  });

  /** The failure of a call; fails the test when it succeeds. */
  function send(path: string, request: Buffer, metadata = new Metadata()): Promise<ServiceError> {
    return callWithBytes(raw, path, request, metadata).then(
      () => expect.fail(`${path} succeeded`),
      (error: ServiceError) => error,
    );
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

  /** The violations of a refusal for text that is not UTF-8. */
  function notUtf8Fields(error: ServiceError): string[] {
    expectMalformed(error);
    const violations = readRichStatus(error.metadata)!.badRequest!.fieldViolations;
    for (const violation of violations)
      expect(violation).to.include({ description: 'is not valid UTF-8', reason: 'FIELD_NOT_UTF8' });
    return violations.map((violation) => violation.field);
  }

  it('refuses a lead with a string field that is not UTF-8, naming the field, and stores nothing', async () => {
    const { key } = await stack.createPublisher();
    const body = validLeadBody({ firstName: PLACEHOLDER }) as Partial<Lead>;
    const encoded = SubmitLeadRequest.encode({
      webmasterKey: key,
      lead: Lead.fromPartial(body),
      nonStringFields: [],
    }).finish();
    const path = DistributionServiceService.submitLead.path;
    expect(notUtf8Fields(await send(path, withTextBytes(encoded, '4d ff fe 61')))).to.deep.equal(['lead.first_name']);
    // Not the same lead replayed, nor a clickid reused: the first one was never stored.
    expect(notUtf8Fields(await send(path, withTextBytes(encoded, '4d c0 80 61')))).to.deep.equal(['lead.first_name']);
    const valid = SubmitLeadResponse.decode(await callWithBytes(raw, path, withTextBytes(encoded, '5a 6f c3 ab'))); // Zoë
    expect(valid.outcome?.$case).to.equal('sold');
    expect(valid.replayed).to.equal(false);
  });

  it('refuses an admin request with a string field that is not UTF-8, naming the field', async () => {
    const encoded = CreatePublisherRequest.encode({
      name: PLACEHOLDER,
      rateLimitPerMinute: 0,
      payoutShareBps: 0,
      clawbackBps: undefined,
    }).finish();
    const error = await send(
      AdminServiceService.createPublisher.path,
      withTextBytes(encoded, '41 ff 42 43'),
      bearer(stack.service.adminToken),
    );
    expect(notUtf8Fields(error)).to.deep.equal(['name']);
  });

  it('still checks the caller first: an admin call without the token is UNAUTHENTICATED, whatever its bytes', async () => {
    const error = await send(AdminServiceService.createPublisher.path, MALFORMED['wire type 7']!);
    expect(error.code).to.equal(status.UNAUTHENTICATED);
  });
});
