import type { BuyerDefinition } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import { expect } from 'chai';
import { parse } from 'yaml';
import { minimalBuyer } from '../../../../support/buyer-documents.js';
import { buyerFixture } from '../../../../support/buyer-fixtures.js';

function buyersOf(document: unknown): BuyerDefinition[] {
  const result = parseBuyerDocument(document);
  if ('errors' in result) expect.fail(`unexpected errors: ${JSON.stringify(result.errors, null, 2)}`);
  return result.buyers;
}

const MARKET_YAML = buyerFixture('every-option.yaml');

const EXPECTED: BuyerDefinition[] = [
  {
    name: 'lendco-ping',
    active: true,
    tier: 1,
    priority: 10,
    weight: 3,
    filters: {
      all: [
        { field: 'state', in: ['CA', 'TX', 'NY'] },
        { field: 'loanAmount', range: { min: 300, max: 2500 } },
        { field: 'age', range: { min: 21 } },
        { not: { field: 'email', pattern: '@example\\.com$' } },
        {
          any: [
            { field: 'incomeType', equals: 'EMPLOYMENT' },
            { field: 'incomeNetMonthly', range: { min: 2000 } },
          ],
        },
        { field: 'bankAba', exists: true },
      ],
    },
    schedule: {
      timezone: 'America/New_York',
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      hours: { from: '08:00', to: '20:00' },
    },
    caps: { leadsPerHour: 50, leadsPerDay: 400, leadsPerMonth: undefined, spendPerDayCents: 1_200_000 },
    duplicates: { lookbackDays: 30, match: ['ssn', 'email', 'phone'], includeRejected: false },
    pricing: { type: 'bid' },
    payout: {
      default: { revenueShareBps: 7500 },
      publishers: { pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D: { fixedCents: 1800 }, pub_promo: { revenueShareBps: 9000 } },
    },
    integration: {
      mode: 'ping_post',
      timeoutMs: 1500,
      local: false,
      testBehaviour: 'test_url',
      onTimeout: 'unconfirmed',
      pingTimeoutMs: undefined,
      postTimeoutMs: undefined,
      statusLookup: undefined,
      ping: {
        url: 'https://api.lendco.example/v2/ping',
        testUrl: 'https://sandbox.lendco.example/v2/ping',
        method: 'POST',
        format: 'json',
        headers: { 'X-Api-Key': 's3cr3t-ping-key' },
        auth: undefined,
        mapping: {
          'lead.state': { field: 'state', transform: [] },
          'lead.zip': { field: 'zip', transform: [] },
          'lead.amount': { field: 'loanAmount', transform: [{ money: 'number' }] },
          'lead.age': { field: 'age', transform: [] },
          'lead.payDays': { field: 'daysUntilNextPayDate', transform: [] },
          affiliate: { value: 'LF-204' },
        },
        response: {
          format: 'json',
          accepted: { path: '$.status', equals: 'accepted' },
          price: { path: '$.bid.amount' },
          reason: { path: '$.message' },
          reference: { path: '$.ping_id' },
          redirectUrl: undefined,
        },
      },
      post: {
        url: 'https://api.lendco.example/v2/post',
        testUrl: 'https://sandbox.lendco.example/v2/post',
        method: 'POST',
        format: 'json',
        headers: {},
        auth: { type: 'bearer', token: 'tok_live_123' },
        mapping: {
          ping_id: { field: 'pingReference', transform: [] },
          'applicant.ssn': { field: 'ssn', transform: ['digits'] },
          'applicant.dob': { field: 'dob', transform: [{ date: 'MM/DD/YYYY' }] },
          'applicant.phone': { field: 'cellPhone', transform: ['trim', { phone: '(XXX) XXX-XXXX' }] },
          'applicant.email': { field: 'email', transform: ['lower'] },
          'applicant.payFrequency': {
            field: 'incomePaymentFrequency',
            transform: ['upper', { map: { BIWEEKLY: 'B', WEEKLY: 'W' }, default: 'M' }],
          },
          lead_id: { field: 'leadId', transform: [] },
        },
        response: {
          format: 'json',
          accepted: { path: '$.result', in: ['sold', 'accepted'] },
          price: undefined,
          reason: { path: '$.reason' },
          reference: { path: '$.lead.id' },
          redirectUrl: { path: '$.redirect_url' },
        },
      },
    },
  },
  {
    name: 'cashnow-direct',
    active: true,
    tier: 2,
    priority: 100,
    weight: 1,
    filters: undefined,
    schedule: undefined,
    caps: { leadsPerHour: undefined, leadsPerDay: undefined, leadsPerMonth: undefined, spendPerDayCents: undefined },
    duplicates: undefined,
    pricing: {
      type: 'rules',
      defaultCents: 1500,
      rules: [
        { when: { field: 'state', equals: 'CA' }, priceCents: 2250 },
        {
          when: {
            all: [
              { field: 'loanAmount', range: { min: 1000 } },
              { field: 'dayOfWeek', in: ['sat', 'sun'] },
            ],
          },
          priceCents: 1999,
        },
      ],
    },
    payout: { default: { fixedCents: 1000 }, publishers: {} },
    integration: {
      mode: 'direct_post',
      ping: undefined,
      timeoutMs: 3000,
      local: false,
      testBehaviour: 'accept',
      onTimeout: 'unconfirmed',
      pingTimeoutMs: undefined,
      postTimeoutMs: undefined,
      statusLookup: undefined,
      post: {
        url: 'https://partners.cashnow.example/leads',
        testUrl: undefined,
        method: 'PUT',
        format: 'form',
        headers: { 'X-Source': 'leadflow' },
        auth: { type: 'basic', username: 'leadflow', password: 'p@ss: word' },
        mapping: {
          first_name: { field: 'firstName', transform: [] },
          ssn: { field: 'ssn', transform: [] },
          amount: { field: 'loanAmount', transform: [{ money: 'string' }] },
        },
        response: {
          format: 'xml',
          accepted: { path: '/response/status', matches: '^(ok|accepted)$' },
          price: { path: '/response/price' },
          reason: undefined,
          reference: undefined,
          redirectUrl: { path: 'string(/response/url)' },
        },
      },
    },
  },
  {
    name: 'local-test-buyer',
    active: false,
    tier: 1,
    priority: 100,
    weight: 1,
    filters: undefined,
    schedule: undefined,
    caps: { leadsPerHour: undefined, leadsPerDay: undefined, leadsPerMonth: undefined, spendPerDayCents: undefined },
    duplicates: undefined,
    pricing: { type: 'bid' },
    payout: { default: undefined, publishers: {} },
    integration: {
      mode: 'direct_post',
      ping: undefined,
      timeoutMs: 3000,
      local: true,
      testBehaviour: 'reject',
      onTimeout: 'unconfirmed',
      pingTimeoutMs: undefined,
      postTimeoutMs: undefined,
      statusLookup: undefined,
      post: {
        url: 'http://127.0.0.1:8099/post',
        testUrl: undefined,
        method: 'POST',
        format: 'json',
        headers: {},
        auth: undefined,
        mapping: { ssn: { field: 'ssn', transform: [] } },
        response: {
          format: 'text',
          accepted: { path: 'status=(\\w+)', equals: 'OK' },
          price: { path: 'price=([0-9.]+)' },
          reason: undefined,
          reference: undefined,
          redirectUrl: undefined,
        },
      },
    },
  },
];

describe('parseBuyerDocument: valid documents', () => {
  it('reads a realistic YAML market into definitions, in cents, with defaults filled in', () => {
    expect(buyersOf(parse(MARKET_YAML))).to.deep.equal(EXPECTED);
  });

  it('reads the same market written as JSON', () => {
    const json = JSON.stringify(parse(MARKET_YAML), null, 2);
    expect(buyersOf(JSON.parse(json))).to.deep.equal(EXPECTED);
  });

  it('reads a hand-written JSON list of buyers', () => {
    const json = `[
      {
        "name": "json-buyer",
        "pricing": {"type": "fixed", "price": 12.5},
        "caps": {"leadsPerMonth": 1000},
        "integration": {
          "timeoutMs": 800,
          "post": {
            "url": "https://json.example/leads",
            "mapping": {"loan.amount": "loanAmount", "loan.purpose": "loanPurpose"},
            "response": {"accepted": {"path": "$.accepted", "equals": true}, "price": {"path": "$.price"}}
          }
        }
      }
    ]`;
    const [buyer] = buyersOf(JSON.parse(json));
    expect(buyer.pricing).to.deep.equal({ type: 'fixed', priceCents: 1250 });
    expect(buyer.caps.leadsPerMonth).to.equal(1000);
    expect(buyer.integration.timeoutMs).to.equal(800);
    expect(buyer.integration.post.response.accepted).to.deep.equal({ path: '$.accepted', equals: 'true' });
  });

  it('reads a single buyer object', () => {
    expect(buyersOf(minimalBuyer()).map((buyer) => buyer.name)).to.deep.equal(['minimal']);
  });

  it('fills every default of a minimal buyer', () => {
    const [buyer] = buyersOf({ buyers: [minimalBuyer()] });
    expect(buyer).to.deep.include({
      active: true,
      tier: 1,
      priority: 100,
      weight: 1,
      filters: undefined,
      schedule: undefined,
      duplicates: undefined,
      payout: { default: undefined, publishers: {} },
    });
    expect(buyer.integration).to.deep.include({
      mode: 'direct_post',
      ping: undefined,
      timeoutMs: 3000,
      local: false,
      testBehaviour: 'accept',
    });
    expect(buyer.integration.post).to.deep.include({
      method: 'POST',
      format: 'json',
      headers: {},
      auth: undefined,
      testUrl: undefined,
    });
  });

  it('treats a key left empty in YAML as left out', () => {
    const [buyer] = buyersOf(
      parse(`
name: empty-keys
caps:
schedule:
filters:
pricing: {type: fixed, price: 10}
integration:
  post:
    url: https://x.example/
    mapping: {a: ssn}
    response: {accepted: {path: $.ok, equals: yes}}
`),
    );
    expect(buyer.caps.leadsPerDay).to.equal(undefined);
    expect(buyer.schedule).to.equal(undefined);
    expect(buyer.filters).to.equal(undefined);
  });

  it('reads dollars without floating point and shares to basis points from their digits', () => {
    const priced = (price: unknown, revenueShare: unknown) =>
      buyersOf(minimalBuyer({ pricing: { type: 'fixed', price }, payout: { revenueShare } }))[0];
    expect(priced('0.29', 0.575)).to.deep.include({ pricing: { type: 'fixed', priceCents: 29 } });
    expect(priced(0.29, 0.575).payout.default).to.deep.equal({ revenueShareBps: 5750 });
    expect(priced(19.99, '1').payout.default).to.deep.equal({ revenueShareBps: 10_000 });
    expect(priced('1000', 0).pricing).to.deep.equal({ type: 'fixed', priceCents: 100_000 });
  });

  it('infers ping_post from a ping', () => {
    const [buyer] = buyersOf(
      minimalBuyer({
        integration: {
          ping: {
            url: 'https://p.example/ping',
            mapping: { s: 'state' },
            response: { accepted: { path: '$.ok', equals: 1 } },
          },
          post: {
            url: 'https://p.example/post',
            mapping: { s: 'ssn' },
            response: { accepted: { path: '$.ok', equals: 1 } },
          },
        },
      }),
    );
    expect(buyer.integration.mode).to.equal('ping_post');
  });
});
