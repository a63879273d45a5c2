import { status } from '@grpc/grpc-js';
import { ERROR_DOMAIN, richStatusMetadata } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { postLead, testGateway, testKey } from '../../support/gateway.js';
import { invalidLead, ScriptedDistribution } from '../../support/scripted-distribution.js';

const KEY = testKey('rich-errors');

describe("gateway: the service's AIP-193 refusals as the spec's 400 answers", () => {
  const distribution = new ScriptedDistribution();
  let app: FastifyInstance;

  before(async () => {
    await distribution.start();
    distribution.keys.set(KEY, { publisherId: 'pub-1', rateLimitPerMinute: 1000 });
  });
  after(() => distribution.stop());
  beforeEach(() => {
    distribution.reset();
    app = testGateway(distribution.address);
  });
  afterEach(() => app.close());

  it('keys the errors by the JSON names of the proto paths, digits and short words included', async () => {
    distribution.submit = () =>
      invalidLead({
        incomeNextDate1: 'must be a date in YYYY-MM-DD form',
        tPar: 'is malformed',
        loanAmount: 'is required',
      });
    const response = await postLead(app, KEY);
    expect(response.statusCode).to.equal(400);
    expect(response.json()).to.deep.equal({
      status: 'error',
      errors: { incomeNextDate1: 'must be a date in YYYY-MM-DD form', tPar: 'is malformed', loanAmount: 'is required' },
    });
  });

  it('answers a clickid reused with another body (ALREADY_EXISTS) as a clickid error', async () => {
    const message = 'the clickid was already used for a different lead';
    distribution.submit = () => ({
      code: status.ALREADY_EXISTS,
      details: message,
      metadata: richStatusMetadata({
        code: status.ALREADY_EXISTS,
        message,
        errorInfo: { reason: 'CLICKID_REUSED', domain: ERROR_DOMAIN, metadata: {} },
        badRequest: {
          fieldViolations: [
            {
              field: 'lead.clickid',
              description: 'was already used for a different lead',
              reason: 'CLICKID_REUSED',
              localizedMessage: undefined,
            },
          ],
        },
      }),
    });
    const response = await postLead(app, KEY);
    expect(response.statusCode).to.equal(400);
    expect(response.json()).to.deep.equal({
      status: 'error',
      errors: { clickid: 'was already used for a different lead' },
    });
  });

  it('answers a violation of a field outside the lead under body, and undecodable details as a bad request body', async () => {
    const message = 'bad';
    distribution.submit = () => ({
      code: status.INVALID_ARGUMENT,
      details: message,
      metadata: richStatusMetadata({
        code: status.INVALID_ARGUMENT,
        message,
        badRequest: {
          fieldViolations: [
            {
              field: 'webmaster_key',
              description: 'is malformed',
              reason: 'FIELD_INVALID',
              localizedMessage: undefined,
            },
          ],
        },
      }),
    });
    expect((await postLead(app, KEY)).json()).to.deep.equal({ status: 'error', errors: { body: 'is malformed' } });
    const garbled = invalidLead({ ssn: 'x' });
    garbled.metadata!.set('grpc-status-details-bin', Buffer.from([0xff, 0xff, 0xff]));
    distribution.submit = () => garbled;
    expect((await postLead(app, KEY)).json()).to.deep.equal({
      status: 'error',
      errors: { body: 'is not a valid lead request' },
    });
  });
});
