import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SENSITIVE_LEAD_FIELDS } from '@leadflow/core/lead-fields';
import type { BuyerDefinition } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { EnvironmentValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import type { Problem } from '@leadflow/distribution/src/buyers/definition/problems';
import { expect } from 'chai';

const NO_VALUES = new EnvironmentValues({});

function errorsOf(document: unknown, values = NO_VALUES): Problem[] {
  const result = parseBuyerDocument(document, values);
  if (!('errors' in result)) return expect.fail('expected errors, got buyers');
  return result.errors;
}

function buyerOf(document: unknown, values = NO_VALUES): BuyerDefinition {
  const result = parseBuyerDocument(document, values);
  if ('errors' in result) return expect.fail(JSON.stringify(result.errors));
  return result.buyers[0];
}

const REPLY = { accepted: { path: '$.status', equals: 'ok' } };
const withPost = (post: Record<string, unknown>, integration: Record<string, unknown> = {}) => ({
  name: 'acme',
  pricing: { type: 'fixed', price: '20' },
  integration: { post: { url: 'https://acme.example/post', response: REPLY, ...post }, ...integration },
});

describe('parseBuyerDocument: request formats, references and priceChange', () => {
  describe('xml and soap', () => {
    it('takes element paths under one root, and says which key breaks them', () => {
      expect(
        buyerOf(withPost({ format: 'xml', mapping: { 'Lead/SSN': 'ssn', 'Lead/@v': { value: 1 } } })).integration.post
          .format,
      ).to.equal('xml');
      expect(
        errorsOf(
          withPost({
            format: 'xml',
            mapping: { 'Lead/SSN': 'ssn', 'Other/Name': 'firstName', 'Lead/SSN/Part': 'ssn', 'Lead/<x>': 'ssn' },
          }),
        ),
      ).to.deep.equal([
        {
          path: 'integration.post.mapping["Other/Name"]',
          message: 'must start at the root element Lead, as the first key does: an XML document has one root',
        },
        {
          path: 'integration.post.mapping["Lead/SSN/Part"]',
          message: 'is inside Lead/SSN, which holds a value: an element holds text or elements, not both',
        },
        {
          path: 'integration.post.mapping["Lead/<x>"]',
          message:
            'must be an element path of XML names such as Lead/Applicant/FirstName, optionally ending in /@attribute',
        },
      ]);
    });

    it('checks a template: well-formed, placeholders only in text or attribute values, placeholders and keys naming each other', () => {
      const at = (template: string, mapping: Record<string, unknown> = { name: 'firstName' }) =>
        errorsOf(withPost({ format: 'xml', template, mapping }));
      expect(at('<a>{{name}}</b>')).to.deep.equal([
        { path: 'integration.post.template', message: 'must be well-formed XML without a DOCTYPE' },
      ]);
      expect(at('<!DOCTYPE a [<!ENTITY x "y">]><a>{{name}}</a>')).to.deep.equal([
        { path: 'integration.post.template', message: 'must be well-formed XML without a DOCTYPE' },
      ]);
      expect(at('<a>&x;{{name}}</a>')).to.deep.equal([
        { path: 'integration.post.template', message: 'must be well-formed XML without a DOCTYPE' },
      ]);
      // Keys written for a broken template are still placeholder names, not element paths.
      expect(at('<a>{{first}} {{last}}</b>', { first: 'firstName', last: 'lastName' })).to.deep.equal([
        { path: 'integration.post.template', message: 'must be well-formed XML without a DOCTYPE' },
      ]);
      for (const misplaced of [
        '<{{name}}/>',
        '<a><!-- {{name}} --></a>',
        '<a><![CDATA[{{name}}]]></a>',
        '<a {{name}}="1"/>',
      ]) {
        expect(at(misplaced), misplaced).to.have.length(1);
        expect(at(misplaced)[0].path, misplaced).to.equal('integration.post.template');
      }
      expect(at('<a n="{{name}}">{{other}}</a>', { name: 'firstName', unused: 'lastName' })).to.deep.equal([
        { path: 'integration.post.template', message: 'has {{other}}, which is not a key of the mapping' },
        { path: 'integration.post.mapping.unused', message: 'is not used by the template' },
      ]);
      expect(errorsOf(withPost({ format: 'json', template: '<a/>', mapping: { a: 'ssn' } }))).to.deep.equal([
        { path: 'integration.post.template', message: 'is used only with format xml or soap' },
      ]);
    });

    it("takes a template larger and deeper than a buyer reply may be: it is the operator's own text", () => {
      const deep = `${'<a>'.repeat(100)}{{name}}${'</a>'.repeat(100)}`;
      const wide = `<a>${'<b n="{{name}}"/>'.repeat(1_000)}</a>`;
      for (const template of [deep, wide]) {
        expect(
          buyerOf(withPost({ format: 'xml', template, mapping: { name: 'firstName' } })).integration.post.template,
        ).to.equal(template);
      }
    });

    it('takes a SOAP template as the Body content, and soapAction only with soap', () => {
      const soap = buyerOf(
        withPost({
          format: 'soap',
          soapAction: 'urn:x#Submit',
          template: '<x:Submit xmlns:x="urn:x"><x:Ssn>{{ssn}}</x:Ssn></x:Submit>',
          mapping: { ssn: 'ssn' },
        }),
      );
      expect(soap.integration.post).to.include({ format: 'soap', soapAction: 'urn:x#Submit' });
      expect(errorsOf(withPost({ format: 'xml', soapAction: 'urn:x', mapping: { 'a/b': 'ssn' } }))).to.deep.equal([
        { path: 'integration.post.soapAction', message: 'is used only with format soap' },
      ]);
    });
  });

  describe('GET', () => {
    it('sends the mapping as the query and refuses every personal field in a URL', () => {
      expect(
        buyerOf(withPost({ method: 'get', mapping: { state: 'state', city: 'city', zip: 'zip' } })).integration.post,
      ).to.include({ method: 'GET', format: 'query' });
      expect(
        errorsOf(
          withPost({
            method: 'GET',
            mapping: {
              s: 'ssn',
              acct: { field: 'bankAccountNumber' },
              first: 'firstName',
              mail: 'email',
              ip: 'userIp',
            },
          }),
        ),
      ).to.deep.equal([
        {
          path: 'integration.post.mapping.s',
          message: 'ssn is never sent in a URL, where access logs keep it; use POST',
        },
        {
          path: 'integration.post.mapping.acct.field',
          message: 'bankAccountNumber is never sent in a URL, where access logs keep it; use POST',
        },
        {
          path: 'integration.post.mapping.first',
          message: 'firstName is never sent in a URL, where access logs keep it; use POST',
        },
        {
          path: 'integration.post.mapping.mail',
          message: 'email is never sent in a URL, where access logs keep it; use POST',
        },
        {
          path: 'integration.post.mapping.ip',
          message: 'userIp is never sent in a URL, where access logs keep it; use POST',
        },
      ]);
      for (const field of SENSITIVE_LEAD_FIELDS) {
        expect(errorsOf(withPost({ method: 'GET', mapping: { x: field } })), field).to.have.length(1);
      }
    });
  });

  describe('references', () => {
    const referencing = withPost({
      url: 'https://${env:ACME_HOST}/post',
      headers: { 'X-Key': '${secret:acme.key}' },
      auth: { bearer: '${secret:acme.token}' },
      mapping: { ssn: 'ssn', key: { value: '${env:ACME_KEY}' } },
    });

    it('keeps the references as written once each resolves', () => {
      const dir = mkdtempSync(join(tmpdir(), 'leadflow-secrets-'));
      const file = join(dir, 'secrets.yaml');
      writeFileSync(file, 'acme:\n  key: k-1\n  token: t-1\n');
      const values = new EnvironmentValues({
        ACME_HOST: 'acme.example',
        ACME_KEY: 'abc',
        LEADFLOW_BUYER_SECRETS_FILE: file,
      });
      const { post } = buyerOf(referencing, values).integration;
      expect(post.url).to.equal('https://${env:ACME_HOST}/post');
      expect(post.headers).to.deep.equal({ 'X-Key': '${secret:acme.key}' });
      expect(post.auth).to.deep.equal({ type: 'bearer', token: '${secret:acme.token}' });
      expect(JSON.stringify(buyerOf(referencing, values))).not.to.match(/k-1|t-1|abc/);
    });

    it('reports each reference that does not resolve at its path, naming it and never a value', () => {
      expect(errorsOf(referencing, new EnvironmentValues({ ACME_KEY: 'abc' }))).to.deep.equal([
        {
          path: 'integration.post.url',
          message: "${env:ACME_HOST}: is not set in the distribution service's environment",
        },
        {
          path: 'integration.post.headers["X-Key"]',
          message: '${secret:acme.key}: no secrets file is configured (LEADFLOW_BUYER_SECRETS_FILE)',
        },
        {
          path: 'integration.post.auth.bearer',
          message: '${secret:acme.token}: no secrets file is configured (LEADFLOW_BUYER_SECRETS_FILE)',
        },
      ]);
    });

    it('checks what a reference resolves to as it checks a value written out, without repeating it', () => {
      const values = new EnvironmentValues({ ACME_HOST: 'acme.example/x y\u0000', ACME_KEY: 'abc' });
      const dir = mkdtempSync(join(tmpdir(), 'leadflow-secrets-'));
      writeFileSync(join(dir, 's.json'), JSON.stringify({ acme: { key: 'a\nb', token: 'has space' } }));
      const errors = errorsOf(
        referencing,
        new EnvironmentValues({
          ACME_HOST: 'bad host',
          ACME_KEY: 'abc',
          LEADFLOW_BUYER_SECRETS_FILE: join(dir, 's.json'),
        }),
      );
      expect(errors).to.deep.equal([
        { path: 'integration.post.url', message: 'must be an absolute URL' },
        { path: 'integration.post.headers["X-Key"]', message: 'must not contain line breaks' },
        { path: 'integration.post.auth.bearer', message: 'must be a token of printable characters without spaces' },
      ]);
      expect(
        errorsOf(referencing, values)
          .map((error) => error.message)
          .join(),
      ).not.to.include('x y');
    });

    it("refuses references to the service's own settings, set or not, naming only the reference", () => {
      const values = new EnvironmentValues({
        LEADFLOW_PII_KEYS: 'k1:pii-key-value',
        LEADFLOW_HMAC_KEY: 'hmac-key-value',
        DATABASE_URL: 'mysql://root:db-password@db/leadflow',
        REDIS_URL: 'redis://:redis-password@cache',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=otel-token',
      });
      const errors = errorsOf(
        withPost({
          url: 'https://collector.example/${env:LEADFLOW_PII_KEYS}',
          headers: { 'X-A': '${env:DATABASE_URL}', 'X-B': '${env:REDIS_URL}' },
          auth: { bearer: '${env:leadflow_hmac_key}' },
          mapping: {
            ssn: 'ssn',
            a: { value: '${env:OTEL_EXPORTER_OTLP_HEADERS}' },
            b: { value: '${env:LEADFLOW_ADMIN_TOKEN}' },
          },
        }),
        values,
      );
      const problem =
        "is one of the service's own settings (LEADFLOW_*, OTEL_*, DATABASE_URL, REDIS_URL), which a buyer file may not read";
      expect(errors).to.deep.equal([
        { path: 'integration.post.url', message: `\${env:LEADFLOW_PII_KEYS}: ${problem}` },
        { path: 'integration.post.headers["X-A"]', message: `\${env:DATABASE_URL}: ${problem}` },
        { path: 'integration.post.headers["X-B"]', message: `\${env:REDIS_URL}: ${problem}` },
        { path: 'integration.post.auth.bearer', message: `\${env:leadflow_hmac_key}: ${problem}` },
        { path: 'integration.post.mapping.a.value', message: `\${env:OTEL_EXPORTER_OTLP_HEADERS}: ${problem}` },
        { path: 'integration.post.mapping.b.value', message: `\${env:LEADFLOW_ADMIN_TOKEN}: ${problem}` },
      ]);
      expect(JSON.stringify(errors)).not.to.match(/pii-key-value|hmac-key-value|db-password|redis-password|otel-token/);
      // Other variables, such as one that only starts like a setting, are the operator's.
      const own = withPost({
        url: 'https://${env:LEADFLOWING_HOST}/post',
        headers: { 'X-C': '${env:DATABASE_URL_OF_ACME}' },
        mapping: { ssn: 'ssn' },
      });
      const allowed = new EnvironmentValues({ LEADFLOWING_HOST: 'acme.example', DATABASE_URL_OF_ACME: 'x' });
      expect(buyerOf(own, allowed).integration.post.url).to.equal('https://${env:LEADFLOWING_HOST}/post');
    });

    it('refuses malformed references and takes $${ as a literal', () => {
      expect(
        errorsOf(
          withPost({
            mapping: {
              a: { value: '${env:1BAD}' },
              b: { value: '${vault:x}' },
              c: { value: '${env:OPEN' },
              d: { value: '$${env:NOT_A_REF}' },
            },
          }),
        ),
      ).to.deep.equal([
        {
          path: 'integration.post.mapping.a.value',
          message: 'has a reference that is not ${env:NAME} or ${secret:key.path} (write $${ for a literal ${)',
        },
        {
          path: 'integration.post.mapping.b.value',
          message: 'has a reference that is not ${env:NAME} or ${secret:key.path} (write $${ for a literal ${)',
        },
        {
          path: 'integration.post.mapping.c.value',
          message: 'has a "${" without its "}" (write $${ for a literal ${)',
        },
      ]);
    });

    it('says when the secrets file cannot be read or is not an object, without quoting it', () => {
      const dir = mkdtempSync(join(tmpdir(), 'leadflow-secrets-'));
      writeFileSync(join(dir, 'bad.yaml'), 'token: [unclosed s3cret');
      const document = withPost({ mapping: { k: { value: '${secret:token}' } } });
      expect(
        errorsOf(document, new EnvironmentValues({ LEADFLOW_BUYER_SECRETS_FILE: join(dir, 'bad.yaml') }))[0].message,
      ).to.equal('${secret:token}: the secrets file named by LEADFLOW_BUYER_SECRETS_FILE is not valid YAML or JSON');
      expect(
        errorsOf(document, new EnvironmentValues({ LEADFLOW_BUYER_SECRETS_FILE: join(dir, 'missing.yaml') }))[0]
          .message,
      ).to.equal('${secret:token}: the secrets file named by LEADFLOW_BUYER_SECRETS_FILE cannot be read');
    });
  });

  describe('priceChange', () => {
    const pingPost = (response: Record<string, unknown>) => ({
      name: 'bidder',
      pricing: { type: 'bid' },
      integration: {
        ping: {
          url: 'https://b.example/ping',
          mapping: { state: 'state' },
          response: { accepted: { path: '$.ok', equals: 'yes' }, price: '$.bid' },
        },
        post: {
          url: 'https://b.example/post',
          mapping: { ssn: 'ssn' },
          response: { accepted: { path: '$.ok', equals: 'yes' }, ...response },
        },
      },
    });

    it('is read in the post response of a ping_post buyer that locates a price', () => {
      expect(
        buyerOf(pingPost({ price: '$.price', priceChange: 'reject' })).integration.post.response.priceChange,
      ).to.equal('reject');
      expect(buyerOf(pingPost({ price: '$.price' })).integration.post.response).not.to.have.property('priceChange');
    });

    it('is refused anywhere else, without a price, or with an unknown rule', () => {
      const at = 'integration.post.response.priceChange';
      expect(errorsOf(pingPost({ priceChange: 'use_bid' }))).to.deep.equal([
        { path: at, message: 'needs price: the path of the price the answer names' },
      ]);
      expect(errorsOf(pingPost({ price: '$.p', priceChange: 'accept_higher' }))).to.deep.equal([
        { path: at, message: 'must be one of: accept_lower, use_bid, reject' },
      ]);
      expect(
        errorsOf(withPost({ mapping: { a: 'ssn' }, response: { ...REPLY, price: '$.p', priceChange: 'use_bid' } })),
      ).to.deep.equal([{ path: at, message: 'is used only in the post response of a ping_post buyer' }]);
    });
  });
});
