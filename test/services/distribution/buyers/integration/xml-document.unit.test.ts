import { parseXml, type XmlDocument } from '@leadflow/distribution/src/buyers/integration/xml-document';
import { parseXPath } from '@leadflow/distribution/src/buyers/integration/xml-path';
import { DOMParser } from '@xmldom/xmldom';
import { expect } from 'chai';
import fc from 'fast-check';
import xpath from 'xpath';
import { XML_ACCEPTED, XML_BILLION_LAUGHS, XML_XXE } from '../../../../support/reply-fixtures.js';

function selectXPath(document: XmlDocument, path: string): string | undefined {
  const expression = parseXPath(path);
  if (!expression) throw new Error(`not a supported XPath: ${path}`);
  return document.select(expression);
}

describe('XML replies', () => {
  it('selects attributes, text nodes, elements and expression values', () => {
    const document = parseXml(XML_ACCEPTED)!;
    expect(selectXPath(document, '/response/result/@status')).to.equal('accepted');
    expect(selectXPath(document, '//price/text()')).to.equal('$18.75');
    expect(selectXPath(document, '/response/lead/redirect')).to.equal('https://apply.lender.example/r/A-77120');
    expect(selectXPath(document, 'count(//price)')).to.equal('1');
    expect(selectXPath(document, "boolean(//price[@currency='USD'])")).to.equal('true');
    expect(selectXPath(document, '/response/missing')).to.equal(undefined);
  });

  it('refuses any reply with a DOCTYPE', () => {
    expect(parseXml(XML_XXE)).to.equal(undefined);
    expect(parseXml(XML_BILLION_LAUGHS)).to.equal(undefined);
    expect(parseXml('<!doctype response><response/>')).to.equal(undefined);
  });

  // The DOCTYPE refusal is the first line of defence; this pins down the second: the xmldom version in
  // use neither reads external entities nor expands declared ones.
  it('relies on an xmldom that expands no DTD entity', () => {
    const errors: string[] = [];
    const parse = (xml: string) =>
      new DOMParser({ onError: (level, message) => void errors.push(`${level}: ${message}`) }).parseFromString(
        xml,
        'text/xml',
      );
    expect(parse(XML_XXE).getElementsByTagName('reason')[0].textContent).not.to.match(/root:/);
    expect(parse(XML_BILLION_LAUGHS).getElementsByTagName('reason')[0].textContent).not.to.match(/lollol/);
    expect(errors.filter((error) => /entity not found/.test(error))).to.have.length(2);
  });
});

describe('XPath subset, against the xpath package as a reference', () => {
  const NAMES = ['a', 'b', 'c'] as const;

  /** Small documents of a, b, c elements with x attributes and text, nested up to four levels. */
  const element: fc.Memo<string> = fc.memo((depth) =>
    fc
      .tuple(
        fc.constantFrom(...NAMES),
        fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
        fc.option(fc.constantFrom('t', 'u'), { nil: undefined }),
        depth > 1 ? fc.array(element(depth - 1), { maxLength: 3 }) : fc.constant([]),
      )
      .map(
        ([name, x, text, children]) => `<${name}${x ? ` x="${x}"` : ''}>${text ?? ''}${children.join('')}</${name}>`,
      ),
  );

  const predicate = fc.constantFrom(
    '',
    '[1]',
    '[2]',
    "[@x='1']",
    '[@x]',
    "[b='t']",
    "[text()='t']",
    "[local-name()='a']",
  );
  const step = fc
    .tuple(fc.constantFrom('/', '//'), fc.constantFrom(...NAMES, '*'), predicate)
    .map(([separator, test, filter]) => `${separator}${test}${filter}`);
  const path = fc
    .tuple(fc.array(step, { minLength: 1, maxLength: 4 }), fc.constantFrom('', '/@x', '/text()', '/.'))
    .map(([steps, tail]) => `${steps.join('')}${tail}`);
  const expression = fc
    .tuple(path, fc.constantFrom('', 'count', 'boolean', 'string', 'normalize-space'))
    .map(([located, fn]) => (fn ? `${fn}(${located})` : located));

  function reference(xml: string, expressionText: string): string | undefined {
    const document = new DOMParser().parseFromString(xml, 'text/xml') as unknown as Node;
    const found = xpath.select(expressionText, document, true);
    if (found === null || found === undefined) return undefined;
    if (typeof found !== 'object') return String(found);
    return xpath.isAttribute(found) ? found.value : (found.textContent ?? undefined);
  }

  it('finds what XPath 1.0 finds', () => {
    fc.assert(
      fc.property(element(4), expression, (xml, expressionText) => {
        expect(selectXPath(parseXml(xml)!, expressionText), `${expressionText} on ${xml}`).to.equal(
          reference(xml, expressionText),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('reads namespaced names through the prefixes the root declares, and unprefixed names only outside a namespace', () => {
    const xml =
      '<s:Envelope xmlns:s="urn:soap" xmlns:n="urn:lender"><s:Body><n:Decision>Approved</n:Decision><Decision>plain</Decision></s:Body></s:Envelope>';
    const document = parseXml(xml)!;
    expect(selectXPath(document, '/s:Envelope/s:Body/n:Decision')).to.equal('Approved');
    expect(selectXPath(document, '//Decision')).to.equal('plain');
    expect(selectXPath(document, "//*[local-name()='Decision']")).to.equal('Approved');
    expect(() => selectXPath(document, '//q:Decision')).to.throw();
  });

  it('refuses what is outside the subset', () => {
    for (const text of [
      '',
      '/',
      '/a/following-sibling::b',
      '//a[position() > 1]',
      'sum(//a)',
      '/a | /b',
      '//@x',
      '/a[',
      "/a[@x='1]",
      '/a/..',
      `/${'a/'.repeat(130)}a`,
    ]) {
      expect(parseXPath(text), text).to.equal(undefined);
    }
  });

  it('walks each node at most once per step, however the steps overlap', () => {
    // //a//a//a over 32 nested a: a general engine revisits every subtree from every ancestor.
    const nested = `${'<a>'.repeat(32)}x${'</a>'.repeat(32)}`;
    expect(selectXPath(parseXml(nested)!, 'count(//a//a//a)')).to.equal('30');
  });
});
