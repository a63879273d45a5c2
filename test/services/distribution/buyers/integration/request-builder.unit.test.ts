import { RequestBuildError } from '@leadflow/distribution/src/buyers/integration/request-build-error';
import { buildRequest } from '@leadflow/distribution/src/buyers/integration/request-builder';
import { expect } from 'chai';
import { exchange, lead } from '../../../../support/exchange-fixtures.js';

const LIVE = { test: false };

function jsonOf(body: string | undefined): unknown {
  return JSON.parse(body ?? '');
}

describe('buildRequest', () => {
  describe('JSON body', () => {
    it('nests dotted keys, in mapping order, with fields, derived values, constants and the lead id', () => {
      const request = buildRequest(
        exchange({
          mapping: {
            'applicant.name.first': { field: 'firstName', transform: [] },
            'applicant.name.last': { field: 'lastName', transform: ['upper'] },
            'applicant.age': { field: 'age', transform: [] },
            'loan.amount': { field: 'loanAmount', transform: [] },
            'source.campaign': { value: 'summer' },
            'source.test': { value: false },
            'source.version': { value: 2 },
            reference: { field: 'leadId', transform: [] },
          },
        }),
        lead(),
        LIVE,
      );
      expect(request.body).to.equal(
        JSON.stringify({
          applicant: { name: { first: 'Jane', last: 'DOE' }, age: 35 },
          loan: { amount: 1500 },
          source: { campaign: 'summer', test: false, version: 2 },
          reference: 'lead-0001',
        }),
      );
    });

    it('leaves out fields the lead does not have, never sending "undefined" or null', () => {
      const request = buildRequest(
        exchange({
          mapping: {
            'contact.work': { field: 'workPhone', transform: [{ phone: '(XXX) XXX-XXXX' }] },
            'contact.cell': { field: 'cellPhone', transform: [] },
            'extra.purpose': { field: 'loanPurpose', transform: [] },
            'extra.days': { field: 'daysUntilNextPayDate', transform: [] },
          },
        }),
        lead({ derived: { daysUntilNextPayDate: undefined } }),
        LIVE,
      );
      expect(jsonOf(request.body)).to.deep.equal({ contact: { cell: '2175550199' } });
      expect(request.body).not.to.match(/undefined|null/);
    });

    it("sends the buyer's ping reference in its post, and leaves it out when there is none", () => {
      const post = exchange({
        mapping: { ping_id: { field: 'pingReference', transform: [] }, lead: { field: 'leadId', transform: [] } },
      });
      expect(jsonOf(buildRequest(post, { ...lead(), pingReference: 'PING-42' }, LIVE).body)).to.deep.equal({
        ping_id: 'PING-42',
        lead: 'lead-0001',
      });
      expect(jsonOf(buildRequest(post, lead(), LIVE).body)).to.deep.equal({ lead: 'lead-0001' });
    });

    it('reads a derived value before the lead field of the same name', () => {
      const request = buildRequest(
        exchange({
          mapping: { amount: { field: 'loanAmount', transform: [] }, test: { field: 'testMode', transform: [] } },
        }),
        lead({ derived: { testMode: true } }),
        LIVE,
      );
      expect(jsonOf(request.body)).to.deep.equal({ amount: 1500, test: true });
    });

    it('falls back to the lead field when there is no derived value', () => {
      const request = buildRequest(
        exchange({ mapping: { amount: { field: 'loanAmount', transform: [] } } }),
        lead({ derived: { loanAmount: undefined } }),
        LIVE,
      );
      expect(jsonOf(request.body)).to.deep.equal({ amount: '1500.00' });
    });

    it('refuses keys that cannot share one object, whatever the lead', () => {
      const mapping = {
        applicant: { field: 'firstName' as const, transform: [] },
        'applicant.last': { field: 'loanPurpose' as const, transform: [] },
      };
      expect(() => buildRequest(exchange({ mapping }), lead(), LIVE))
        .to.throw(RequestBuildError)
        .with.property('code', 'conflicting_keys');
      expect(() => buildRequest(exchange({ mapping: { 'a..b': { value: 1 } } }), lead(), LIVE)).to.throw(
        RequestBuildError,
      );
    });

    it('keeps "__proto__" a plain key', () => {
      const request = buildRequest(exchange({ mapping: { '__proto__.polluted': { value: 'yes' } } }), lead(), LIVE);
      expect(request.body).to.equal('{"__proto__":{"polluted":"yes"}}');
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });
  });

  describe('form body', () => {
    it('url-encodes flat keys, dotted keys kept as they are', () => {
      const request = buildRequest(
        exchange({
          format: 'form',
          mapping: {
            first_name: { field: 'firstName', transform: [] },
            'applicant.email': { field: 'email', transform: [] },
            note: { value: 'a&b=c d' },
            amount: { field: 'loanAmount', transform: [{ money: 'string' }] },
            purpose: { field: 'loanPurpose', transform: [] },
          },
        }),
        lead(),
        LIVE,
      );
      expect(request.body).to.equal(
        'first_name=Jane&applicant.email=jane.doe%40example.com&note=a%26b%3Dc+d&amount=1500.00',
      );
      expect(request.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    });
  });

  describe('headers', () => {
    it('sets the content type per format and keeps the configured headers, names in lower case', () => {
      const request = buildRequest(
        exchange({ headers: { 'X-Api-Key': 'k-123', Accept: 'application/json' } }),
        lead(),
        LIVE,
      );
      expect(request.headers).to.deep.equal({
        'x-api-key': 'k-123',
        accept: 'application/json',
        'content-type': 'application/json',
      });
    });

    it('keeps a content type the operator set', () => {
      const request = buildRequest(
        exchange({ headers: { 'Content-Type': 'application/vnd.lender+json' } }),
        lead(),
        LIVE,
      );
      expect(request.headers['content-type']).to.equal('application/vnd.lender+json');
    });

    it('sends bearer auth', () => {
      const request = buildRequest(exchange({ auth: { type: 'bearer', token: 'tok-abc' } }), lead(), LIVE);
      expect(request.headers.authorization).to.equal('Bearer tok-abc');
    });

    it('sends basic auth as base64 of user:password, UTF-8, auth winning over a configured header', () => {
      const request = buildRequest(
        exchange({
          headers: { Authorization: 'stale' },
          auth: { type: 'basic', username: 'leadflow', password: 'pässword:1' },
        }),
        lead(),
        LIVE,
      );
      expect(request.headers.authorization).to.equal(`Basic ${Buffer.from('leadflow:pässword:1').toString('base64')}`);
      expect(Buffer.from(request.headers.authorization.slice(6), 'base64').toString('utf8')).to.equal(
        'leadflow:pässword:1',
      );
    });
  });

  describe('destination', () => {
    it('sends live leads to the live URL with the configured method', () => {
      const request = buildRequest(
        exchange({ method: 'PUT', testUrl: 'https://sandbox.lender.example/leads' }),
        lead(),
        LIVE,
      );
      expect(request.url).to.equal('https://api.lender.example/leads');
      expect(request.method).to.equal('PUT');
    });

    it('sends test leads to the test URL', () => {
      const request = buildRequest(exchange({ testUrl: 'https://sandbox.lender.example/leads' }), lead(), {
        test: true,
      });
      expect(request.url).to.equal('https://sandbox.lender.example/leads');
    });

    it('never sends a test lead to the live URL', () => {
      expect(() => buildRequest(exchange(), lead(), { test: true }))
        .to.throw(RequestBuildError)
        .with.property('code', 'no_test_url');
    });
  });
});
