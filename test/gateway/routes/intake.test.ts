import { gzipSync } from 'node:zlib';
import { status } from '@grpc/grpc-js';
import { LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { postLead, testGateway, testKey, VALID_LEAD } from '../../support/gateway.js';
import { invalidLead, ScriptedDistribution, SOLD } from '../../support/scripted-distribution.js';

const KEY = testKey('intake');

describe('gateway: POST /api/intake/:webmasterKey', () => {
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

  describe('answers', () => {
    it('answers a sold lead with the price as a JSON number in USD', async () => {
      const response = await postLead(app, KEY);
      expect(response.statusCode).to.equal(200);
      const body = response.json();
      expect(Object.keys(body)).to.deep.equal([
        'leadId',
        'status',
        'price',
        'redirectUrl',
        'buyerId',
        'processingTime',
      ]);
      expect(body).to.include({
        leadId: 'lead-1',
        status: 'sold',
        price: 12.5,
        redirectUrl: 'https://buyer.example/r/1',
        buyerId: 'buyer-1',
      });
      expect(body.processingTime).to.be.a('number').and.to.be.within(0, 2000);
      expect(String(body.processingTime)).to.match(/^\d+(\.\d{1,2})?$/);
    });

    it('omits redirectUrl when the buyer gave none', async () => {
      distribution.submit = () => ({
        ...SOLD,
        outcome: { $case: 'sold', value: { leadId: 'lead-2', payoutCents: 700, buyerId: 'buyer-2', redirectUrl: '' } },
      });
      const body = (await postLead(app, KEY)).json();
      expect(body).to.not.have.property('redirectUrl');
      expect(body).to.include({ status: 'sold', price: 7 });
    });

    it('answers a rejected lead with 200, the reason and processingTime', async () => {
      distribution.submit = () => ({
        outcome: { $case: 'rejected', value: { leadId: 'lead-3', reason: 'No buyer accepted the lead' } },
        buyerWait: undefined,
        replayed: false,
      });
      const response = await postLead(app, KEY);
      expect(response.statusCode).to.equal(200);
      const body = response.json();
      expect(Object.keys(body)).to.deep.equal(['leadId', 'status', 'reason', 'processingTime']);
      expect(body).to.include({ leadId: 'lead-3', status: 'rejected', reason: 'No buyer accepted the lead' });
      expect(body.processingTime).to.be.a('number');
    });

    it('answers an invalid lead with 400 and the per-field errors', async () => {
      const errors = { ssn: 'must be 9 digits', email: 'is required' };
      distribution.submit = () => invalidLead(errors);
      const response = await postLead(app, KEY);
      expect(response.statusCode).to.equal(400);
      expect(response.json()).to.deep.equal({ status: 'error', errors });
    });

    it('answers 500 with a generic message when the service gives no outcome', async () => {
      distribution.submit = () => ({ outcome: undefined, buyerWait: undefined, replayed: false });
      const response = await postLead(app, KEY);
      expect(response.statusCode).to.equal(500);
      expect(response.json()).to.deep.equal({ status: 'error', message: 'Internal server error' });
    });
  });

  describe('mapping the body into a lead', () => {
    it('sends the key, every string field, and the names of fields that were not strings', async () => {
      await postLead(app, KEY, {
        ...VALID_LEAD,
        ssn: 535221234,
        price: null,
        loanAmount: { amount: '1000' },
        testMode: true,
        tPar: ['a'],
      });
      expect(distribution.submitCalls).to.have.length(1);
      const { request } = distribution.submitCalls[0]!;
      expect(request.webmasterKey).to.equal(KEY);
      expect(request.nonStringFields).to.have.members(['ssn', 'price', 'loanAmount', 'testMode', 'tPar']);
      expect(request.lead).to.include({ firstName: 'Ada', clickid: 'click-1', ssn: '', price: '', testMode: '' });
    });

    it('drops unknown fields and never reads inherited ones', async () => {
      await postLead(app, KEY, { firstName: 'Ada', favouriteColour: 'blue', toString: 'x', hasOwnProperty: 'y' });
      const { request } = distribution.submitCalls[0]!;
      expect(Object.keys(request.lead!)).to.have.members([...LEAD_FIELDS]);
      expect(request.lead!.firstName).to.equal('Ada');
      expect(request.nonStringFields).to.deep.equal([]);
    });

    it('ignores __proto__, constructor and prototype keys as unknown fields, and pollutes nothing', async () => {
      const { firstName: _, ...withoutFirstName } = VALID_LEAD;
      const lead = JSON.stringify(withoutFirstName).slice(0, -1);
      for (const extra of [
        '"__proto__": {"firstName": "Eve", "polluted": "yes"}',
        '"constructor": {"prototype": {"firstName": "Eve", "polluted": "yes"}}',
        '"prototype": {"firstName": "Eve"}, "nested": {"__proto__": {"polluted": "yes"}}',
      ]) {
        const response = await postLead(app, KEY, `${lead}, ${extra}}`);
        expect(response.statusCode, extra).to.equal(200);
      }
      expect(distribution.submitCalls.map(({ request }) => request.lead!.firstName)).to.deep.equal(['', '', '']);
      expect(distribution.submitCalls[0]!.request.lead!.lastName).to.equal('Lovelace');
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('accepts application/json with a charset that names UTF-8', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF8"']) {
        const response = await postLead(app, KEY, { ...VALID_LEAD, firstName: 'José' }, contentType);
        expect(response.statusCode, contentType).to.equal(200);
      }
      expect(distribution.submitCalls.map(({ request }) => request.lead!.firstName)).to.deep.equal(['José', 'José']);
    });
  });

  describe('refusing bodies before the service is called', () => {
    const cases: Array<{
      name: string;
      payload: string | Buffer;
      contentType?: string;
      status: number;
      body: object;
    }> = [
      {
        name: 'malformed JSON',
        payload: '{"ssn": "535221234",',
        status: 400,
        body: { status: 'error', errors: { body: 'must be valid JSON' } },
      },
      {
        name: 'an empty JSON body',
        payload: '',
        status: 400,
        body: { status: 'error', errors: { body: 'must be a JSON object' } },
      },
      ...['[]', 'null', '"lead"', '42', 'true'].map((payload) => ({
        name: `the non-object body ${payload}`,
        payload,
        status: 400,
        body: { status: 'error', errors: { body: 'must be a JSON object' } },
      })),
      {
        name: 'half a surrogate pair escaped in a field',
        payload: JSON.stringify({ ...VALID_LEAD, firstName: 'Ada' }).replace('"Ada"', '"\\ud800Ada"'),
        status: 400,
        body: { status: 'error', errors: { firstName: 'must not contain an unpaired surrogate (\\uD800-\\uDFFF)' } },
      },
      {
        name: 'a body in Latin-1, declared so',
        payload: Buffer.from(JSON.stringify({ ...VALID_LEAD, firstName: 'José' }), 'latin1'),
        contentType: 'application/json; charset=latin1',
        status: 415,
        body: {
          status: 'error',
          message: 'The body must be UTF-8: send it as UTF-8, with charset=utf-8 or no charset',
        },
      },
      {
        name: 'a JSON body declared in another charset than UTF-8',
        payload: JSON.stringify(VALID_LEAD),
        contentType: 'application/json; charset=ISO-8859-1',
        status: 415,
        body: {
          status: 'error',
          message: 'The body must be UTF-8: send it as UTF-8, with charset=utf-8 or no charset',
        },
      },
      ...['application/json', 'application/json; charset=utf-8'].map((contentType) => ({
        name: `bytes that are not UTF-8, sent as ${contentType}`,
        payload: Buffer.from(JSON.stringify({ ...VALID_LEAD, firstName: 'José' }), 'latin1'),
        contentType,
        status: 400,
        body: { status: 'error', errors: { body: 'must be UTF-8 text' } },
      })),
      {
        name: 'text/plain',
        payload: JSON.stringify(VALID_LEAD),
        contentType: 'text/plain',
        status: 415,
        body: { status: 'error', message: 'Content-Type must be application/json' },
      },
      {
        name: 'form data',
        payload: 'ssn=535221234',
        contentType: 'application/x-www-form-urlencoded',
        status: 415,
        body: { status: 'error', message: 'Content-Type must be application/json' },
      },
      {
        name: 'a body over 64 KiB',
        payload: JSON.stringify({ ...VALID_LEAD, userAgent: 'x'.repeat(64 * 1024) }),
        status: 413,
        body: { status: 'error', message: 'The request body exceeds 64 KiB' },
      },
    ];
    for (const { name, payload, contentType, status: statusCode, body } of cases) {
      it(`answers ${statusCode} to ${name}`, async () => {
        const response = await postLead(app, KEY, payload, contentType ?? 'application/json');
        expect(response.statusCode).to.equal(statusCode);
        expect(response.headers['content-type']).to.match(/^application\/json/);
        expect(response.json()).to.deep.equal(body);
        expect(response.headers).to.have.property('ratelimit');
        expect(distribution.submitCalls).to.have.length(0);
        expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      });
    }

    it('answers 415 that says so to a compressed body, and reads an identity one as sent', async () => {
      const post = (encoding: string, payload: Buffer | string) =>
        app.inject({
          method: 'POST',
          url: `/api/intake/${KEY}`,
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
          payload,
        });
      const gzipped = await post('gzip', gzipSync(JSON.stringify(VALID_LEAD)));
      expect(gzipped.statusCode).to.equal(415);
      expect(gzipped.json()).to.deep.equal({
        status: 'error',
        message: 'Content-Encoding is not supported: send the body uncompressed',
      });
      expect((await post('br, gzip', 'x')).statusCode).to.equal(415);
      expect(distribution.submitCalls).to.have.length(0);
      expect((await post(' Identity ', JSON.stringify(VALID_LEAD))).statusCode).to.equal(200);
      expect(distribution.submitCalls).to.have.length(1);
    });

    it('answers 415 to a post with neither a Content-Type nor a body', async () => {
      const response = await app.inject({ method: 'POST', url: `/api/intake/${KEY}` });
      expect(response.statusCode).to.equal(415);
      expect(response.json()).to.deep.equal({ status: 'error', message: 'Content-Type must be application/json' });
    });

    it('accepts a body of exactly 64 KiB', async () => {
      const base = JSON.stringify({ ...VALID_LEAD, userAgent: '' });
      const payload = JSON.stringify({ ...VALID_LEAD, userAgent: 'x'.repeat(64 * 1024 - base.length) });
      expect(Buffer.byteLength(payload)).to.equal(64 * 1024);
      expect((await postLead(app, KEY, payload)).statusCode).to.equal(200);
    });
  });

  describe('gRPC failures', () => {
    const cases: Array<{ code: status; statusCode: number; body: object }> = [
      {
        code: status.UNAUTHENTICATED,
        statusCode: 401,
        body: { status: 'error', message: 'Unknown or revoked webmaster key' },
      },
      {
        code: status.RESOURCE_EXHAUSTED,
        statusCode: 429,
        body: { status: 'error', message: 'Rate limit exceeded', retryAfter: 1 },
      },
      {
        code: status.INVALID_ARGUMENT,
        statusCode: 400,
        body: { status: 'error', errors: { body: 'is not a valid lead request' } },
      },
      {
        code: status.UNAVAILABLE,
        statusCode: 503,
        body: { status: 'error', message: 'Service temporarily unavailable; retry with backoff' },
      },
      {
        code: status.DEADLINE_EXCEEDED,
        statusCode: 504,
        body: { status: 'error', message: 'The lead was not processed in time; retry with the same clickid' },
      },
      { code: status.INTERNAL, statusCode: 500, body: { status: 'error', message: 'Internal server error' } },
      {
        code: status.FAILED_PRECONDITION,
        statusCode: 500,
        body: { status: 'error', message: 'Internal server error' },
      },
    ];
    for (const { code, statusCode, body } of cases) {
      it(`answers ${status[code]} with ${statusCode}`, async () => {
        distribution.submit = () => ({ code, details: 'database said: secret internals' });
        const response = await postLead(app, KEY);
        expect(response.statusCode).to.equal(statusCode);
        expect(response.json()).to.deep.equal(body);
        expect(response.body).to.not.include('secret internals');
        expect(response.headers).to.have.property('ratelimit-policy');
      });
    }

    it('sends Retry-After: 1 with a 503', async () => {
      distribution.submit = () => ({ code: status.UNAVAILABLE, details: 'draining' });
      const response = await postLead(app, KEY);
      expect(response.headers['retry-after']).to.equal('1');
    });

    it('answers 504 when the service does not answer within the intake deadline', async () => {
      const impatient = testGateway(distribution.address, { intakeDeadlineMs: 200 });
      try {
        distribution.submitDelayMs = 1000;
        const response = await postLead(impatient, KEY);
        expect(response.statusCode).to.equal(504);
        expect(response.json()).to.deep.equal({
          status: 'error',
          message: 'The lead was not processed in time; retry with the same clickid',
        });
      } finally {
        await impatient.close();
      }
    });
  });

  describe('other routes', () => {
    it('answers an unknown route with a JSON 404', async () => {
      const response = await app.inject({ method: 'GET', url: '/nope' });
      expect(response.statusCode).to.equal(404);
      expect(response.json()).to.deep.equal({ status: 'error', message: 'Not found' });
    });

    const paths = [
      { path: `/api/intake/${KEY}`, allow: 'POST', others: ['GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT', 'PATCH'] },
      { path: `/api/intake/${KEY}/leads/click-1`, allow: 'GET, HEAD', others: ['POST', 'OPTIONS', 'DELETE', 'PUT'] },
    ] as const;
    for (const { path, allow, others } of paths) {
      it(`answers ${others.join(', ')} on ${path.replace(KEY, '{key}')} 405, with Allow: ${allow}`, async () => {
        for (const method of others) {
          const response = await app.inject({ method, url: path });
          expect(response.statusCode, method).to.equal(405);
          expect(response.headers.allow, method).to.equal(allow);
          expect(response.headers['content-type'], method).to.match(/^application\/json/);
          if (method !== 'HEAD') {
            expect(response.json(), method).to.deep.equal({
              status: 'error',
              message: 'Method not allowed: the Allow header lists the methods this path takes',
            });
          }
        }
        expect(distribution.resolveCalls).to.have.length(0);
      });
    }

    it('answers 405 to another method before reading its body', async () => {
      const response = await app.inject({
        method: 'PUT',
        url: `/api/intake/${KEY}`,
        headers: { 'content-type': 'text/plain' },
        payload: 'x'.repeat(100 * 1024),
      });
      expect(response.statusCode).to.equal(405);
    });

    it('answers a path with a trailing slash 404', async () => {
      for (const url of [`/api/intake/${KEY}/`, `/api/intake/${KEY}/leads/click-1/`]) {
        const response = await app.inject({ method: 'POST', url, payload: VALID_LEAD });
        expect(response.statusCode, url).to.equal(404);
        expect(response.json()).to.deep.equal({ status: 'error', message: 'Not found' });
      }
    });
  });
});
