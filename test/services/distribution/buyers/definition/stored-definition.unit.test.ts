import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuyerDefinition } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { EnvironmentValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import { readStoredDefinition } from '@leadflow/distribution/src/buyers/definition/stored-definition';
import { expect } from 'chai';
import { parse } from 'yaml';
import { minimalBuyer } from '../../../../support/buyer-documents.js';

/** What the references of EVERY_OPTION resolve to, as the service's environment and secrets file. */
function referenceValues(): EnvironmentValues {
  const secretsFile = join(mkdtempSync(join(tmpdir(), 'leadflow-secrets-')), 'buyers.yaml');
  writeFileSync(secretsFile, 'every:\n  apiKey: k-123\n  password: "p a:ss"\n');
  return new EnvironmentValues({ STATUS_HOST: '10.0.0.5', CHANNEL: 'web', LEADFLOW_BUYER_SECRETS_FILE: secretsFile });
}

function parsed(document: unknown, values = referenceValues()): BuyerDefinition[] {
  const result = parseBuyerDocument(document, values);
  if ('errors' in result) return expect.fail(JSON.stringify(result.errors));
  return result.buyers;
}

/** Every option of the file format at least once. */
const EVERY_OPTION = {
  name: 'every-option',
  active: false,
  tier: 3,
  priority: 7,
  weight: 5,
  filters: {
    all: [
      { field: 'state', in: ['CA', 'TX'] },
      { field: 'loanAmount', range: { min: 500, max: '2500.55' } },
      { field: 'incomeNetMonthly', equals: '1234.56' },
      { not: { field: 'email', pattern: '@example\\.com$' } },
      {
        any: [
          { field: 'hourOfDay', range: { min: 8, max: 19 } },
          { field: 'testMode', equals: true },
          { field: 'bankAba', exists: false },
        ],
      },
    ],
  },
  schedule: { timezone: 'America/Chicago', days: ['mon', 'fri'], hours: { from: '20:00', to: '06:00' } },
  caps: { leadsPerHour: 20, leadsPerDay: 200, leadsPerMonth: 4000, spendPerDay: '5000.01' },
  duplicates: { lookbackDays: 30, match: ['ssn', 'phone'], includeRejected: true },
  pricing: { type: 'rules', default: '20.00', rules: [{ when: { field: 'state', equals: 'CA' }, price: '30.05' }] },
  payout: {
    revenueShare: 0.8125,
    publishers: { pub_A1: { fixed: '18.00' }, pub_B2: { revenueShare: 1 }, pub_C3: { revenueShare: 0 } },
  },
  integration: {
    mode: 'ping_post',
    timeoutMs: 2500,
    pingTimeoutMs: 300,
    postTimeoutMs: 4000,
    local: true,
    testBehaviour: 'test_url',
    onTimeout: 'decline',
    statusLookup: {
      url: 'http://${env:STATUS_HOST}/status?v=$${1}',
      method: 'GET',
      mapping: { ref: 'attemptId', lead: 'leadId' },
      response: { format: 'json', accepted: { path: '$.held', equals: 'yes' } },
    },
    ping: {
      url: 'http://10.0.0.5/ping',
      testUrl: 'http://10.0.0.5/test-ping',
      format: 'form',
      mapping: { st: 'state', amount: { field: 'loanAmount', transform: { money: 'number' } }, src: { value: 7 } },
      response: {
        format: 'xml',
        accepted: { path: '/r/@status', in: ['bid', 'ok'] },
        price: '//bid',
        reference: { path: '/r/id[1]' },
      },
    },
    post: {
      url: 'https://buyer.example/post',
      testUrl: 'https://buyer.example/test-post',
      method: 'PUT',
      format: 'soap',
      soapAction: 'urn:buyer#Submit',
      template:
        '<b:Submit xmlns:b="urn:buyer" test="{{test}}" channel="{{channel}}"><b:Ping>{{pingId}}</b:Ping><b:Request>{{requestId}}</b:Request>' +
        '<b:Dob>{{applicant.dob}}</b:Dob><b:Phone>{{applicant.phone}}</b:Phone><b:Income>{{applicant.income}}</b:Income></b:Submit>',
      headers: { 'X-Api-Version': '2', 'X-Api-Key': '${secret:every.apiKey}' },
      auth: { basic: { username: 'user', password: '${secret:every.password}' } },
      mapping: {
        pingId: 'pingReference',
        requestId: 'attemptId',
        'applicant.dob': { field: 'dob', transform: [{ date: 'MM/DD/YYYY' }] },
        'applicant.phone': { field: 'cellPhone', transform: { phone: '(XXX) XXX-XXXX' } },
        'applicant.income': {
          field: 'incomeType',
          transform: [{ map: { EMPLOYMENT: 'job' }, default: 'other' }, 'upper'],
        },
        test: { value: false },
        channel: { value: '${env:CHANNEL}' },
      },
      response: {
        format: 'text',
        accepted: { path: '^(\\w+)\\|', matches: '^(?i)acc' },
        price: '\\|([0-9.]+)',
        priceChange: 'reject',
        reason: 'REASON=(.*)$',
        redirectUrl: 'URL=(\\S+)',
      },
    },
  },
};

describe('stored buyer definitions', () => {
  it('read back exactly as apply stored them, for every option and every buyer shipped', () => {
    const values = referenceValues();
    const post = (fields: Record<string, unknown>) => ({
      url: 'https://b.example/',
      response: { accepted: { path: '$.ok', equals: 1 } },
      ...fields,
    });
    const documents = [
      {
        buyers: [
          EVERY_OPTION,
          minimalBuyer({
            name: 'bearer',
            integration: { post: post({ auth: { bearer: 't0k' }, mapping: { a: 'ssn' } }) },
          }),
          minimalBuyer({
            name: 'xml-paths',
            integration: { post: post({ format: 'xml', mapping: { 'Lead/Ssn': 'ssn', 'Lead/@v': { value: 2 } } }) },
          }),
          minimalBuyer({
            name: 'xml-template',
            integration: {
              post: post({
                format: 'xml',
                template: '<?xml version="1.0"?><Lead v="2">{{ssn}}</Lead>',
                mapping: { ssn: 'ssn' },
              }),
            },
          }),
        ],
      },
      parse(
        readFileSync('services/distribution/src/demo/demo-buyers.yaml', 'utf8').replaceAll(
          'SIMULATOR_URL',
          'http://127.0.0.1:4010',
        ),
      ),
    ];
    for (const document of documents) {
      for (const definition of parsed(document, values)) {
        expect(readStoredDefinition(JSON.stringify(definition), values), definition.name).to.deep.equal({ definition });
      }
    }
  });

  it('keep the references of every option, and are refused once one no longer resolves', () => {
    const [definition] = parsed({ buyers: [EVERY_OPTION] });
    const stored = JSON.stringify(definition);
    expect(stored).to.include('${secret:every.apiKey}').and.not.to.include('k-123');
    const result = readStoredDefinition(stored, new EnvironmentValues({ CHANNEL: 'web' }));
    expect((result as { errors: { path: string }[] }).errors.map((error) => error.path)).to.have.members([
      'integration.statusLookup.url',
      'integration.post.headers["X-Api-Key"]',
      'integration.post.auth.basic.password',
    ]);
  });

  it('are refused when they fail a rule of apply, each problem with its path', () => {
    const [valid] = parsed({ buyers: [EVERY_OPTION] });
    const tampered = structuredClone(valid);
    tampered.integration.ping!.mapping.ssn = { field: 'ssn', transform: [] };
    tampered.integration.post.url = 'http://buyer.example/post';
    tampered.integration.local = false;
    tampered.filters = { field: 'city', pattern: '^(?=x)(\\w+\\s?)+$' };
    tampered.integration.post.response.reason = { path: '(a)\\1' };
    const result = readStoredDefinition(JSON.stringify(tampered), referenceValues());
    expect(result).to.have.property('errors');
    const paths = (result as { errors: { path: string }[] }).errors.map((error) => error.path);
    expect(paths).to.include.members([
      'integration.ping.mapping.ssn.field',
      'integration.ping.url',
      'integration.post.url',
      'filters.pattern',
      'integration.post.response.reason.path',
    ]);
  });

  it('are refused when they are not a definition at all', () => {
    for (const stored of [
      '',
      'null',
      '[]',
      '{}',
      '"text"',
      '{"name": "x", "integration": 5}',
      '{"pricing": {"type": "fixed", "priceCents": "a lot"}}',
    ]) {
      expect(readStoredDefinition(stored), stored).to.have.property('errors').that.is.not.empty;
    }
  });
});
