import {
  cleanText,
  httpUrl,
  MAX_PRICE_CENTS,
  parsePriceCents,
} from '@leadflow/distribution/src/buyers/integration/reply-values';
import { expect } from 'chai';
import fc from 'fast-check';

describe('parsePriceCents', () => {
  it('reads prices as buyers write them', () => {
    expect(parsePriceCents('12.50')).to.equal(1250);
    expect(parsePriceCents('12.5')).to.equal(1250);
    expect(parsePriceCents(String(12.5))).to.equal(1250);
    expect(parsePriceCents('$12.50')).to.equal(1250);
    expect(parsePriceCents('$ 12.50')).to.equal(1250);
    expect(parsePriceCents('USD 12.50')).to.equal(1250);
    expect(parsePriceCents('12')).to.equal(1200);
    expect(parsePriceCents('12.')).to.equal(1200);
    expect(parsePriceCents(' 0.10 ')).to.equal(10);
    expect(parsePriceCents('0')).to.equal(0);
    expect(parsePriceCents('1,250.00')).to.equal(125000);
    expect(parsePriceCents('007.05')).to.equal(705);
  });

  it('cuts fractions of a cent off, never rounding a charge up', () => {
    expect(parsePriceCents('4.129')).to.equal(412);
    expect(parsePriceCents('0.005')).to.equal(0);
  });

  it('refuses negative, absurd and malformed prices', () => {
    for (const text of [
      '-1.00',
      '-0.01',
      '10000.01',
      '99999999999999999999',
      '1e3',
      '12,50',
      '1,25.00',
      'NaN',
      'Infinity',
      '',
      '$',
      '.5',
      '12.50 USD',
    ]) {
      expect(parsePriceCents(text), text).to.equal(undefined);
    }
    expect(parsePriceCents('10000.00')).to.equal(MAX_PRICE_CENTS);
  });

  it('is exact for every price a buyer can send, as text or as a JSON number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_PRICE_CENTS }), (cents) => {
        const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        expect(parsePriceCents(text)).to.equal(cents);
        expect(parsePriceCents(`$${text}`)).to.equal(cents);
        expect(parsePriceCents(String(JSON.parse(text)))).to.equal(cents);
      }),
    );
  });
});

describe('cleanText', () => {
  it('turns control and format characters into single spaces and trims', () => {
    expect(cleanText('  Duplicate\r\n\tlead\u0000 ')).to.equal('Duplicate lead');
    expect(cleanText('a\u202Eb\u2028c')).to.equal('a b c');
  });

  it('caps the length at 500 characters without splitting a character', () => {
    expect(cleanText('é'.repeat(800))).to.equal('é'.repeat(500));
    expect(Array.from(cleanText('😀'.repeat(600))!)).to.have.length(500);
  });

  it('is undefined when nothing is left', () => {
    expect(cleanText('\u0000\r\n ')).to.equal(undefined);
  });
});

describe('httpUrl', () => {
  it('keeps absolute http(s) URLs', () => {
    expect(httpUrl('https://apply.lender.example/r?id=1')).to.equal('https://apply.lender.example/r?id=1');
    expect(httpUrl(' http://lender.example ')).to.equal('http://lender.example/');
  });

  it('drops everything else', () => {
    for (const text of [
      'javascript:alert(1)',
      'data:text/html,x',
      '//lender.example/x',
      '/path',
      'lender.example',
      'https://a b.example/',
      'https://u:p@lender.example/',
      `https://lender.example/${'x'.repeat(2100)}`,
    ]) {
      expect(httpUrl(text), text).to.equal(undefined);
    }
  });
});
