import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuyerDefinition } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { EnvironmentValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import { callBuyer } from '@leadflow/distribution/src/buyers/integration/buyer-call';
import { expect } from 'chai';
import { parse } from 'yaml';
import { lead } from '../../../../support/exchange-fixtures.js';
import { type LocalServer, startLocalServer } from '../../../../support/local-server.js';

const XML_OK = '<?xml version="1.0"?><result><status>accepted</status><id>X-9</id></result>';

/** One buyer of a YAML buyer file, parsed as `buyer apply` parses it. */
function buyerFrom(yaml: string, values: EnvironmentValues): BuyerDefinition {
  const parsed = parseBuyerDocument(parse(yaml), values);
  if ('errors' in parsed) return expect.fail(JSON.stringify(parsed.errors));
  return parsed.buyers[0];
}

async function post(buyer: BuyerDefinition, values: EnvironmentValues, fields: Record<string, string> = {}) {
  return callBuyer(buyer.integration.post, buyer.integration, lead({ fields }), { test: false, kind: 'post', values });
}

describe('what a buyer receives: XML, SOAP, GET and references, over real HTTP', () => {
  let buyer: LocalServer;
  let secretsFile: string;
  beforeEach(async () => {
    buyer = await startLocalServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/xml' });
      response.end(XML_OK);
    });
    secretsFile = join(mkdtempSync(join(tmpdir(), 'leadflow-secrets-')), 'buyers.yaml');
    writeFileSync(secretsFile, 'acme:\n  token: tok-live-1\n  apiKey: "k&<1>"\n');
  });
  afterEach(() => buyer.close());

  const values = (env: Record<string, string> = {}) =>
    new EnvironmentValues({ ACME_URL: buyer.url('/acme'), LEADFLOW_BUYER_SECRETS_FILE: secretsFile, ...env });

  const xmlBuyer = (format: 'xml' | 'soap', body: string) => `
name: acme
pricing: {type: fixed, price: "20"}
integration:
  local: true
  post:
    url: \${env:ACME_URL}
    format: ${format}
    auth: {bearer: "\${secret:acme.token}"}
${body}
    response: {format: xml, accepted: {path: /result/status, equals: accepted}, reference: /result/id}
`;

  it('posts an XML document of element paths, UTF-8 and escaped, with the secret resolved only on the wire', async () => {
    const definition = buyerFrom(
      xmlBuyer(
        'xml',
        `    mapping:
      Lead/@source: {value: leadflow}
      Lead/Key: {value: "\${secret:acme.apiKey}"}
      Lead/Applicant/First: firstName
      Lead/Applicant/Last: lastName`,
      ),
      values(),
    );
    expect(JSON.stringify(definition)).not.to.match(/tok-live-1|k&<1>/);
    const result = await post(definition, values(), { firstName: 'José', lastName: "O'Neil & <Sons>" });
    expect(result).to.deep.include({ outcome: 'accepted', reply: { outcome: 'accepted', reference: 'X-9' } });
    const [received] = buyer.requests;
    const expected =
      '<?xml version="1.0" encoding="UTF-8"?><Lead source="leadflow"><Key>k&amp;&lt;1&gt;</Key>' +
      "<Applicant><First>José</First><Last>O'Neil &amp; &lt;Sons&gt;</Last></Applicant></Lead>";
    expect(received.body).to.equal(expected);
    expect(Buffer.from(received.body, 'utf8').includes(Buffer.from([0x4a, 0x6f, 0x73, 0xc3, 0xa9]))).to.equal(true);
    expect(received.headers['content-length']).to.equal(String(Buffer.byteLength(expected)));
    expect(received.headers['content-type']).to.equal('application/xml; charset=utf-8');
    expect(received.headers.authorization).to.equal('Bearer tok-live-1');
    expect(received.path).to.equal('/acme');
  });

  it('posts a SOAP 1.1 envelope filled from a template, with its SOAPAction', async () => {
    const definition = buyerFrom(
      xmlBuyer(
        'soap',
        `    soapAction: "urn:acme#SubmitLead"
    template: '<a:SubmitLead xmlns:a="urn:acme"><a:Name full="{{first}} {{last}}">{{first}}</a:Name><a:Zip>{{zip}}</a:Zip></a:SubmitLead>'
    mapping: {first: firstName, last: lastName, zip: zip}`,
      ),
      values(),
    );
    await post(definition, values(), { firstName: 'A"B', lastName: '<x>' });
    const [received] = buyer.requests;
    expect(received.body).to.equal(
      '<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
        '<a:SubmitLead xmlns:a="urn:acme"><a:Name full="A&quot;B &lt;x&gt;">A&quot;B</a:Name><a:Zip>62701</a:Zip></a:SubmitLead></soap:Body></soap:Envelope>',
    );
    expect(received.headers).to.include({
      'content-type': 'text/xml; charset=utf-8',
      soapaction: '"urn:acme#SubmitLead"',
    });
  });

  it('sends a GET with the mapping as its query string, and no body or Content-Length', async () => {
    const definition = buyerFrom(
      `
name: acme-get
pricing: {type: fixed, price: "20"}
integration:
  local: true
  post:
    url: "\${env:ACME_URL}?affiliate=7"
    method: GET
    mapping: {state: state, city: city, key: {value: "\${secret:acme.apiKey}"}}
    response: {format: xml, accepted: {path: /result/status, equals: accepted}}
`,
      values(),
    );
    const result = await post(definition, values(), { city: 'Ann Arbor+1' });
    expect(result.outcome).to.equal('accepted');
    const [received] = buyer.requests;
    expect(received.method).to.equal('GET');
    expect(received.path).to.equal('/acme?affiliate=7&state=IL&city=Ann+Arbor%2B1&key=k%26%3C1%3E');
    expect(received.body).to.equal('');
    expect(received.headers).not.to.have.property('content-length');
    expect(received.headers).not.to.have.property('transfer-encoding');
    expect(received.headers).not.to.have.property('content-type');
  });

  it('sends nothing, and says why in the error code, when a reference no longer resolves', async () => {
    const definition = buyerFrom(xmlBuyer('xml', '    mapping: {Lead/State: state}'), values());
    const result = await post(definition, new EnvironmentValues({ ACME_URL: buyer.url('/acme') }));
    expect(result).to.deep.include({
      outcome: 'error',
      httpStatus: null,
      reply: { outcome: 'error', error: 'unresolved_reference' },
    });
    expect(buyer.requests).to.have.length(0);
  });

  it('uses a rotated secret at the next call once the file is read again, without a new apply', async () => {
    const current = values();
    const definition = buyerFrom(xmlBuyer('xml', '    mapping: {Lead/State: state}'), current);
    await post(definition, current);
    writeFileSync(secretsFile, 'acme:\n  token: tok-live-2\n  apiKey: k\n');
    current.reload();
    await post(definition, current);
    expect(buyer.requests.map((request) => request.headers.authorization)).to.deep.equal([
      'Bearer tok-live-1',
      'Bearer tok-live-2',
    ]);
  });
});
