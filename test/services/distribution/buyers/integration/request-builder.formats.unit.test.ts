import type { BuyerValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import { RequestBuildError } from '@leadflow/distribution/src/buyers/integration/request-build-error';
import { buildRequest } from '@leadflow/distribution/src/buyers/integration/request-builder';
import { parseXml, type XmlDocument } from '@leadflow/distribution/src/buyers/integration/xml-document';
import { parseXPath } from '@leadflow/distribution/src/buyers/integration/xml-path';
import { expect } from 'chai';
import { exchange, lead } from '../../../../support/exchange-fixtures.js';

const LIVE = { test: false };

function selectXPath(document: XmlDocument, path: string): string | undefined {
  return document.select(parseXPath(path)!);
}
const HOSTILE = `O'Brien & <Sons> "Ltd" ]]> \r\n\t`;

function values(env: Record<string, string>, secrets: Record<string, string> = {}): BuyerValues {
  return { env: (name) => env[name], secret: (key) => secrets[key], secretsProblem: () => undefined };
}

function buildError(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    if (error instanceof RequestBuildError) return error.code;
    throw error;
  }
  return expect.fail('expected a RequestBuildError');
}

describe('buildRequest: XML, SOAP and GET', () => {
  describe('XML by element paths', () => {
    it('builds one document under the root, in mapping order, attributes included, absent values left out', () => {
      const request = buildRequest(
        exchange({
          format: 'xml',
          mapping: {
            'Lead/@version': { value: 2 },
            'Lead/Applicant/FirstName': { field: 'firstName', transform: [] },
            'Lead/Applicant/SSN': { field: 'ssn', transform: [] },
            'Lead/Applicant/WorkPhone': { field: 'workPhone', transform: [] },
            'Lead/Loan/Amount': { field: 'loanAmount', transform: [] },
            'Lead/Loan/Amount/@currency': { value: 'USD' },
          },
        }),
        lead(),
        LIVE,
      );
      expect(request.body).to.equal(
        '<?xml version="1.0" encoding="UTF-8"?><Lead version="2"><Applicant><FirstName>Jane</FirstName><SSN>123456789</SSN></Applicant>' +
          '<Loan><Amount currency="USD">1500</Amount></Loan></Lead>',
      );
      expect(request.headers['content-type']).to.equal('application/xml; charset=utf-8');
    });

    it('escapes hostile text so that a parser reads back exactly the value, in text and in attributes', () => {
      const request = buildRequest(
        exchange({
          format: 'xml',
          mapping: {
            'Lead/Name': { field: 'firstName', transform: [] },
            'Lead/@note': { field: 'firstName', transform: [] },
          },
        }),
        lead({ fields: { firstName: HOSTILE } }),
        LIVE,
      );
      const document = parseXml(request.body!);
      expect(document, request.body).not.to.equal(undefined);
      expect(selectXPath(document!, '/Lead/Name')).to.equal(HOSTILE);
      expect(selectXPath(document!, '/Lead/@note')).to.equal(HOSTILE);
    });

    it('refuses a value XML cannot carry rather than send a document the buyer cannot parse', () => {
      const built = () =>
        buildRequest(
          exchange({ format: 'xml', mapping: { 'Lead/Name': { field: 'firstName', transform: [] } } }),
          lead({ fields: { firstName: 'a\u0001b' } }),
          LIVE,
        );
      expect(buildError(built)).to.equal('invalid_xml_character');
    });

    it('writes the root even when every value is absent', () => {
      const request = buildRequest(
        exchange({ format: 'xml', mapping: { 'Lead/Phone': { field: 'workPhone', transform: [] } } }),
        lead(),
        LIVE,
      );
      expect(request.body).to.equal('<?xml version="1.0" encoding="UTF-8"?><Lead/>');
    });
  });

  describe('XML templates', () => {
    const template =
      '<?xml version="1.0"?><app xmlns="urn:lender"><name first="{{first}}">{{first}} {{last}}</name><amt>{{amount}}</amt><tel>{{phone}}</tel></app>';

    it('fills each placeholder with its escaped value, an absent one with nothing, and keeps the declaration written', () => {
      const request = buildRequest(
        exchange({
          format: 'xml',
          template,
          mapping: {
            first: { field: 'firstName', transform: [] },
            last: { field: 'lastName', transform: [] },
            amount: { field: 'loanAmount', transform: [{ money: 'string' }] },
            phone: { field: 'workPhone', transform: [] },
          },
        }),
        lead({ fields: { firstName: HOSTILE } }),
        LIVE,
      );
      expect(request.body!.startsWith('<?xml version="1.0"?><app')).to.equal(true);
      const document = parseXml(request.body!)!;
      expect(selectXPath(document, "/*[local-name()='app']/*[local-name()='name']/@first")).to.equal(HOSTILE);
      expect(selectXPath(document, "string(/*[local-name()='app']/*[local-name()='name'])")).to.equal(`${HOSTILE} Doe`);
      expect(selectXPath(document, "string(/*[local-name()='app']/*[local-name()='amt'])")).to.equal('1500.00');
      expect(request.body).to.include('<tel></tel>');
    });
  });

  describe('SOAP 1.1', () => {
    it('wraps the content in an envelope, with text/xml and a quoted SOAPAction', () => {
      const request = buildRequest(
        exchange({
          format: 'soap',
          soapAction: 'urn:lender#Submit',
          mapping: {
            'tns:Submit/@xmlns:tns': { value: 'urn:lender' },
            'tns:Submit/tns:State': { field: 'state', transform: [] },
          },
        }),
        lead(),
        LIVE,
      );
      expect(request.body).to.equal(
        '<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
          '<tns:Submit xmlns:tns="urn:lender"><tns:State>IL</tns:State></tns:Submit></soap:Body></soap:Envelope>',
      );
      expect(request.headers['content-type']).to.equal('text/xml; charset=utf-8');
      expect(request.headers.soapaction).to.equal('"urn:lender#Submit"');
    });
  });

  describe('GET', () => {
    it('puts the mapping in the query string after the query the URL has, and sends no body and no content type', () => {
      const request = buildRequest(
        exchange({
          method: 'GET',
          format: 'query',
          url: 'https://api.lender.example/ping?src=lf&x=a%20b#frag',
          mapping: {
            state: { field: 'state', transform: [] },
            'amount usd': { field: 'loanAmount', transform: [] },
            note: { value: 'a&b=c' },
            phone: { field: 'workPhone', transform: [] },
          },
        }),
        lead(),
        LIVE,
      );
      expect(request.url).to.equal(
        'https://api.lender.example/ping?src=lf&x=a%20b&state=IL&amount+usd=1500&note=a%26b%3Dc',
      );
      expect(request.body).to.equal(undefined);
      expect(request.headers).not.to.have.property('content-type');
    });
  });

  describe('references', () => {
    const withReferences = exchange({
      url: 'https://${env:ACME_HOST}/leads',
      headers: { 'X-Key': '${secret:acme.key}' },
      auth: { type: 'basic', username: '${env:ACME_USER}', password: 'p-${secret:acme.password}' },
      mapping: { apiKey: { value: '${secret:acme.key}' }, literal: { value: 'cost $${x}' } },
    });

    it('resolves url, headers, auth and constants where the request is built', () => {
      const request = buildRequest(withReferences, lead(), {
        test: false,
        values: values(
          { ACME_HOST: 'staging.acme.example', ACME_USER: 'lf' },
          { 'acme.key': 'k-123', 'acme.password': 's3cret' },
        ),
      });
      expect(request.url).to.equal('https://staging.acme.example/leads');
      expect(request.headers['x-key']).to.equal('k-123');
      expect(request.headers.authorization).to.equal(`Basic ${Buffer.from('lf:p-s3cret').toString('base64')}`);
      expect(JSON.parse(request.body!)).to.deep.equal({ apiKey: 'k-123', literal: 'cost ${x}' });
    });

    it('sends nothing when a reference no longer resolves, or resolves to a line break in a header', () => {
      expect(
        buildError(() =>
          buildRequest(withReferences, lead(), { test: false, values: values({ ACME_HOST: 'a.example' }) }),
        ),
      ).to.equal('unresolved_reference');
      const split = values(
        { ACME_HOST: 'a.example', ACME_USER: 'lf' },
        { 'acme.key': 'k\r\nX-Evil: 1', 'acme.password': 'p' },
      );
      expect(buildError(() => buildRequest(withReferences, lead(), { test: false, values: split }))).to.equal(
        'unresolved_reference',
      );
    });
  });
});
