import { DOMParser } from '@xmldom/xmldom';
import { expect } from 'chai';
import { parseXml, type XmlDocument } from '../../../services/distribution/src/buyers/integration/xml-document.js';
import { parseXPath } from '../../../services/distribution/src/buyers/integration/xml-path.js';
import { XML_ACCEPTED, XML_BILLION_LAUGHS, XML_XXE } from './reply-fixtures.js';

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
      new DOMParser({ onError: (level, message) => void errors.push(`${level}: ${message}`) }).parseFromString(xml, 'text/xml');
    expect(parse(XML_XXE).getElementsByTagName('reason')[0].textContent).not.to.match(/root:/);
    expect(parse(XML_BILLION_LAUGHS).getElementsByTagName('reason')[0].textContent).not.to.match(/lollol/);
    expect(errors.filter((error) => /entity not found/.test(error))).to.have.length(2);
  });
});
