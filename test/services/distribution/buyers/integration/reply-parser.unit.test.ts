import type { ResponseParser } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { parseReply } from '@leadflow/distribution/src/buyers/integration/reply-parser';
import { expect } from 'chai';
import * as fixture from '../../../../support/reply-fixtures.js';

const JSON_NESTED: ResponseParser = {
  format: 'json',
  accepted: { path: '$.response.result.status', equals: 'accepted' },
  price: { path: '$.response.lead.price' },
  reason: { path: '$.response.errors' },
  reference: { path: 'response.lead.id' },
  redirectUrl: { path: "$['response']['redirect'].url" },
};

const JSON_PING: ResponseParser = {
  format: 'json',
  accepted: { path: '$.success', in: ['true', '1', 'yes'] },
  price: { path: "$.offers[0]['bid amount']" },
  reason: undefined,
  reference: { path: '$.offers[0].offer_id' },
  redirectUrl: undefined,
};

const JSON_FLAG: ResponseParser = {
  format: 'json',
  accepted: { path: 'accepted', equals: 'true' },
  price: { path: 'price' },
  reason: { path: 'reason' },
  reference: { path: 'ref' },
  redirectUrl: undefined,
};

const XML: ResponseParser = {
  format: 'xml',
  accepted: { path: '/response/result/@status', equals: 'accepted' },
  price: { path: '//price/text()' },
  reason: { path: '/response/message' },
  reference: { path: '/response/lead/@id' },
  redirectUrl: { path: '//redirect' },
};

const SOAP: ResponseParser = {
  format: 'xml',
  accepted: { path: '/soap:Envelope/soap:Body/ns1:PostLeadResponse/ns1:Decision', matches: '^Approv' },
  price: { path: "//*[local-name()='Amount']" },
  reason: undefined,
  reference: undefined,
  redirectUrl: undefined,
};

const TEXT: ResponseParser = {
  format: 'text',
  accepted: { path: '^(ACCEPTED|REJECT)\\b', equals: 'ACCEPTED' },
  price: undefined,
  reason: { path: '^REJECT: (.*)$' },
  reference: { path: '^ACCEPTED\\|([^|]+)\\|' },
  redirectUrl: { path: '^ACCEPTED\\|[^|]*\\|(.*)$' },
};

function ok(parser: ResponseParser, body: string, contentType = 'application/json') {
  return parseReply(parser, 200, contentType, body, { local: false });
}

describe('parseReply', () => {
  describe('JSON', () => {
    it('reads a nested acceptance: status ignoring case, price as a string, reference, redirect', () => {
      expect(ok(JSON_NESTED, fixture.JSON_ACCEPTED_NESTED)).to.deep.equal({
        outcome: 'accepted',
        priceCents: 4250,
        reference: 'LND-88231',
        redirectUrl: 'https://apply.lender.example/continue?token=ab12&lead=LND-88231',
      });
    });

    it('reads a rejection with its list of reasons', () => {
      expect(ok(JSON_NESTED, fixture.JSON_REJECTED_WITH_ERRORS)).to.deep.equal({
        outcome: 'rejected',
        reason: 'Duplicate lead; State not serviced',
        reference: 'LND-88232',
      });
    });

    it('reads a bid from an array, under a key with a space', () => {
      expect(ok(JSON_PING, fixture.JSON_PING_OFFERS)).to.deep.equal({
        outcome: 'accepted',
        priceCents: 725,
        reference: '991',
      });
    });

    it('reads booleans and numbers', () => {
      expect(ok(JSON_FLAG, fixture.JSON_NUMERIC_PRICE)).to.deep.equal({
        outcome: 'accepted',
        priceCents: 1250,
        reference: '123456',
      });
    });

    it('takes a reply with only a reason for a rejection', () => {
      expect(ok(JSON_FLAG, fixture.JSON_REASON_ONLY)).to.deep.equal({
        outcome: 'rejected',
        reason: 'Outside lending hours',
      });
    });

    it('takes a 200 whose body is an error, with no outcome in it, for an error', () => {
      expect(ok(JSON_NESTED, fixture.JSON_200_ERROR_BODY)).to.deep.equal({ outcome: 'error', error: 'no_outcome' });
    });

    it('takes truncated JSON for an error', () => {
      expect(ok(JSON_NESTED, fixture.JSON_TRUNCATED)).to.deep.equal({ outcome: 'error', error: 'unparseable_reply' });
    });

    it('never accepts at an unknown price', () => {
      const noPrice = JSON.stringify({ response: { result: { status: 'accepted' } } });
      expect(ok(JSON_NESTED, noPrice)).to.deep.equal({ outcome: 'error', error: 'no_price' });
      for (const price of ['-5.00', '10000.01', 'free', '1e3', '']) {
        const body = JSON.stringify({ response: { result: { status: 'accepted' }, lead: { price } } });
        expect(ok(JSON_NESTED, body).outcome, price).to.equal('error');
      }
    });

    it('takes a rejection with a bad price for a rejection', () => {
      const body = JSON.stringify({ response: { result: { status: 'rejected' }, lead: { price: 'n/a' } } });
      expect(ok(JSON_NESTED, body)).to.deep.equal({ outcome: 'rejected' });
    });

    it('drops a redirect that is not http(s)', () => {
      for (const url of [
        'javascript:alert(1)',
        '/relative/path',
        'ftp://lender.example/x',
        'https://user:pw@lender.example/',
      ]) {
        const body = JSON.stringify({
          response: { result: { status: 'accepted' }, lead: { price: '1' }, redirect: { url } },
        });
        expect(ok(JSON_NESTED, body), url).to.deep.equal({ outcome: 'accepted', priceCents: 100 });
      }
    });

    it('passes a plain-http redirect only from a local buyer; from any other the sale stands without it', () => {
      const body = JSON.stringify({
        response: {
          result: { status: 'accepted' },
          lead: { price: '1' },
          redirect: { url: 'http://lender.example/r/1' },
        },
      });
      expect(ok(JSON_NESTED, body)).to.deep.equal({ outcome: 'accepted', priceCents: 100 });
      expect(parseReply(JSON_NESTED, 200, 'application/json', body, { local: true })).to.deep.equal({
        outcome: 'accepted',
        priceCents: 100,
        redirectUrl: 'http://lender.example/r/1',
      });
      const secure = body.replace('http://', 'https://');
      expect(ok(JSON_NESTED, secure).redirectUrl).to.equal('https://lender.example/r/1');
    });

    it('cleans reasons: control characters out, length capped at 500', () => {
      const body = JSON.stringify({ reason: `Bad\u0000 lead\r\n\u202Eevil\u0007 ${'x'.repeat(600)}` });
      const { reason } = ok(JSON_FLAG, body);
      expect(reason).to.match(/^Bad lead evil x+$/);
      expect(reason).to.have.length(500);
    });

    it('reads no inherited property', () => {
      const parser = { ...JSON_FLAG, accepted: { path: '$.constructor.name', equals: 'Object' } };
      expect(ok(parser, '{}')).to.deep.equal({ outcome: 'error', error: 'no_outcome' });
    });

    it('reports a malformed path', () => {
      const parser = { ...JSON_FLAG, accepted: { path: '$..status', equals: 'ok' } };
      expect(ok(parser, '{"status":"ok"}')).to.deep.equal({ outcome: 'error', error: 'invalid_locator' });
    });
  });

  describe('XML', () => {
    it('reads attributes and nested elements', () => {
      expect(ok(XML, fixture.XML_ACCEPTED, 'application/xml')).to.deep.equal({
        outcome: 'accepted',
        priceCents: 1875,
        reference: 'A-77120',
        redirectUrl: 'https://apply.lender.example/r/A-77120',
      });
    });

    it('reads a rejection and its CDATA reason, even labelled text/html', () => {
      expect(ok(XML, fixture.XML_REJECTED, 'text/html')).to.deep.equal({
        outcome: 'rejected',
        reason: 'Lead rejected: duplicate within 30 days',
      });
    });

    it('reads namespaced replies through the prefixes their root declares', () => {
      expect(ok(SOAP, fixture.XML_SOAP_ACCEPTED, 'text/xml')).to.deep.equal({ outcome: 'accepted', priceCents: 3000 });
    });

    it('takes malformed XML for an error', () => {
      expect(ok(XML, fixture.XML_MALFORMED, 'application/xml')).to.deep.equal({
        outcome: 'error',
        error: 'unparseable_reply',
      });
      expect(ok(XML, 'ACCEPTED', 'application/xml')).to.deep.equal({ outcome: 'error', error: 'unparseable_reply' });
    });

    it('refuses external entities and entity expansion', () => {
      expect(ok(XML, fixture.XML_XXE, 'application/xml')).to.deep.equal({
        outcome: 'error',
        error: 'unparseable_reply',
      });
      expect(ok(XML, fixture.XML_BILLION_LAUGHS, 'application/xml')).to.deep.equal({
        outcome: 'error',
        error: 'unparseable_reply',
      });
    });

    it('reports an invalid XPath', () => {
      const parser = { ...XML, accepted: { path: '/response/[', equals: 'x' } };
      expect(ok(parser, fixture.XML_ACCEPTED, 'application/xml')).to.deep.equal({
        outcome: 'error',
        error: 'invalid_locator',
      });
    });
  });

  describe('text', () => {
    it('reads "ACCEPTED|REF|URL"', () => {
      expect(ok(TEXT, fixture.TEXT_ACCEPTED, 'text/plain')).to.deep.equal({
        outcome: 'accepted',
        reference: 'REF123',
        redirectUrl: 'https://apply.lender.example/go/REF123',
      });
    });

    it('reads "REJECT: reason", even labelled text/html', () => {
      expect(ok(TEXT, fixture.TEXT_REJECTED, 'text/html; charset=UTF-8')).to.deep.equal({
        outcome: 'rejected',
        reason: 'duplicate',
      });
    });

    it('takes the whole match without a group', () => {
      const parser = { ...TEXT, accepted: { path: 'ACCEPTED|REJECT', equals: 'accepted' } };
      expect(ok(parser, 'Lead ACCEPTED', 'text/plain').outcome).to.equal('accepted');
    });

    it('takes an answer it cannot read for an error', () => {
      expect(ok(TEXT, 'OK thanks', 'text/plain')).to.deep.equal({ outcome: 'error', error: 'no_outcome' });
    });

    it('reports an invalid regular expression', () => {
      const parser = { ...TEXT, accepted: { path: '^(ACCEPTED', equals: 'x' } };
      expect(ok(parser, fixture.TEXT_ACCEPTED, 'text/plain')).to.deep.equal({
        outcome: 'error',
        error: 'invalid_locator',
      });
    });
  });

  describe('never a sale', () => {
    it('a non-2xx status, whatever the body says', () => {
      for (const status of [100, 199, 300, 302, 400, 404, 500, 503]) {
        expect(
          parseReply(JSON_NESTED, status, 'application/json', fixture.JSON_ACCEPTED_NESTED, { local: false }),
          String(status),
        ).to.deep.equal({
          outcome: 'error',
          error: 'http_status',
        });
      }
    });

    it('an empty body', () => {
      for (const parser of [JSON_NESTED, XML, TEXT]) {
        expect(ok(parser, '')).to.deep.equal({ outcome: 'error', error: 'empty_reply' });
        expect(ok(parser, ' \r\n')).to.deep.equal({ outcome: 'error', error: 'empty_reply' });
      }
    });

    it('an HTML error page, in any format', () => {
      for (const parser of [JSON_NESTED, XML, TEXT]) {
        expect(ok(parser, fixture.HTML_BAD_GATEWAY, 'text/html')).to.deep.equal({
          outcome: 'error',
          error: 'html_reply',
        });
      }
      expect(ok(TEXT, fixture.HTML_FRAGMENT, 'text/html')).to.deep.equal({ outcome: 'error', error: 'html_reply' });
    });

    it('a status value that does not match', () => {
      const body = JSON.stringify({
        response: { result: { status: 'accepted_pending_review' }, lead: { price: '5' } },
      });
      expect(ok(JSON_NESTED, body).outcome).to.equal('rejected');
    });
  });
  describe('bounded cost', () => {
    it('refuses replies over the caps before any path is evaluated, as reply_too_complex', () => {
      const tooComplex = { outcome: 'error', error: 'reply_too_complex' };
      // The reply that held the service for 26 s: 64 KiB of sibling elements.
      expect(ok(XML, `<response>${'<status/>'.repeat(7000)}</response>`, 'application/xml')).to.deep.equal(tooComplex);
      expect(
        ok(XML, `<response ${Array.from({ length: 513 }, (_, i) => `a${i}=""`).join(' ')}/>`, 'application/xml'),
      ).to.deep.equal(tooComplex);
      expect(ok(XML, `${'<a xmlns:x="u">'.repeat(33)}${'</a>'.repeat(33)}`, 'application/xml')).to.deep.equal(
        tooComplex,
      );
      expect(ok(JSON_FLAG, `${'['.repeat(33)}${']'.repeat(33)}`)).to.deep.equal(tooComplex);
      expect(ok(JSON_FLAG, `{"accepted": true, "deep": ${'{"a":'.repeat(32)}1${'}'.repeat(32)}}`)).to.deep.equal(
        tooComplex,
      );
      expect(ok(TEXT, `ACCEPTED|R-1|${'x'.repeat(2048)}`, 'text/plain')).to.deep.equal(tooComplex);
    });

    it('reads replies at the caps', () => {
      const wide = `<response><result status="accepted"/>${'<x/>'.repeat(500)}<price>1</price></response>`;
      expect(ok(XML, wide, 'application/xml')).to.include({ outcome: 'accepted' });
      const deep = `<response><result status="accepted"/>${'<a>'.repeat(30)}${'</a>'.repeat(30)}<price>1</price></response>`;
      expect(ok(XML, deep, 'application/xml')).to.include({ outcome: 'accepted' });
      // Brackets and braces inside strings are not nesting.
      expect(ok(JSON_FLAG, JSON.stringify({ accepted: true, price: '1', note: '[[[[{{{{'.repeat(100) }))).to.include({
        outcome: 'accepted',
      });
      expect(ok(JSON_FLAG, JSON.stringify({ accepted: true, price: '1', note: '\\"[[[[' }))).to.include({
        outcome: 'accepted',
      });
    });

    it('never matches a verdict longer than 256 characters against a pattern', () => {
      const parser: ResponseParser = {
        ...JSON_FLAG,
        accepted: { path: '$.accepted', matches: '^a+$' },
        price: undefined,
      };
      expect(ok(parser, JSON.stringify({ accepted: 'a'.repeat(256) })).outcome).to.equal('accepted');
      expect(ok(parser, JSON.stringify({ accepted: 'a'.repeat(257) })).outcome).to.equal('rejected');
    });

    it('runs the pattern that backtracks for ever on V8 in linear time', () => {
      const parser: ResponseParser = {
        ...TEXT,
        accepted: { path: '^(\\w+\\s?)+$', equals: 'x' },
        reason: undefined,
        reference: undefined,
        redirectUrl: undefined,
      };
      // V8 needs about a second at 26 characters and doubles with each one more; this would not end.
      expect(ok(parser, `${'a'.repeat(40)}!`, 'text/plain')).to.deep.equal({ outcome: 'error', error: 'no_outcome' });
    });
  });
});
