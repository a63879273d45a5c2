import { applyTransforms } from '@leadflow/distribution/src/buyers/integration/field-transforms';
import { expect } from 'chai';
import fc from 'fast-check';

describe('applyTransforms', () => {
  it('keeps the value without transforms', () => {
    expect(applyTransforms('Jane', [])).to.equal('Jane');
    expect(applyTransforms(35, [])).to.equal(35);
    expect(applyTransforms(false, [])).to.equal(false);
  });

  it('digits, upper, lower, trim', () => {
    expect(applyTransforms('62701-1234', ['digits'])).to.equal('627011234');
    expect(applyTransforms('il', ['upper'])).to.equal('IL');
    expect(applyTransforms('Jane.Doe@Example.COM', ['lower'])).to.equal('jane.doe@example.com');
    expect(applyTransforms('  Jane  ', ['trim'])).to.equal('Jane');
  });

  it('applies transforms in order', () => {
    expect(applyTransforms(' employment ', ['trim', 'upper', { map: { EMPLOYMENT: 'E' } }])).to.equal('E');
  });

  it('formats dates with YYYY, MM and DD', () => {
    expect(applyTransforms('1990-04-01', [{ date: 'MM/DD/YYYY' }])).to.equal('04/01/1990');
    expect(applyTransforms('1990-04-01', [{ date: 'YYYYMMDD' }])).to.equal('19900401');
    expect(applyTransforms('1990-04-01', [{ date: 'DD.MM.YYYY' }])).to.equal('01.04.1990');
  });

  it('leaves out a date that is not one', () => {
    expect(applyTransforms('04/01/1990', [{ date: 'YYYY-MM-DD' }])).to.equal(undefined);
    expect(applyTransforms('2023-02-29', [{ date: 'YYYY-MM-DD' }])).to.equal(undefined);
  });

  it('formats phones with one X per digit', () => {
    expect(applyTransforms('2175550199', [{ phone: '(XXX) XXX-XXXX' }])).to.equal('(217) 555-0199');
    expect(applyTransforms('2175550199', [{ phone: 'XXX.XXX.XXXX' }])).to.equal('217.555.0199');
    expect(applyTransforms('2175550199', [{ phone: '+1XXXXXXXXXX' }])).to.equal('+12175550199');
  });

  it('leaves out a phone that does not fit the pattern', () => {
    expect(applyTransforms('555019', [{ phone: '(XXX) XXX-XXXX' }])).to.equal(undefined);
    expect(applyTransforms('2175550199', [{ phone: 'XXX-XXXX' }])).to.equal(undefined);
  });

  it('writes money as a dollars number or a two-decimal string', () => {
    expect(applyTransforms('1500.00', [{ money: 'number' }])).to.equal(1500);
    expect(applyTransforms('3200.50', [{ money: 'number' }])).to.equal(3200.5);
    expect(applyTransforms(3200.5, [{ money: 'string' }])).to.equal('3200.50');
    expect(applyTransforms(1500, [{ money: 'string' }])).to.equal('1500.00');
    expect(applyTransforms('0.3', [{ money: 'string' }])).to.equal('0.30');
    expect(applyTransforms('not money', [{ money: 'string' }])).to.equal(undefined);
  });

  it('money never shows floating-point drift', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999 }), (cents) => {
        const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        expect(applyTransforms(text, [{ money: 'string' }])).to.equal(text);
        expect(applyTransforms(cents / 100, [{ money: 'string' }])).to.equal(text);
        expect(String(applyTransforms(text, [{ money: 'number' }]))).to.equal(String(Number(text)));
      }),
    );
  });

  it('maps values, with a default or unchanged', () => {
    const map = { map: { employment: 'EMP', benefits: 'BEN' }, default: 'OTHER' };
    expect(applyTransforms('employment', [map])).to.equal('EMP');
    expect(applyTransforms('pension', [map])).to.equal('OTHER');
    expect(applyTransforms('pension', [{ map: { employment: 'EMP' } }])).to.equal('pension');
    expect(applyTransforms(true, [{ map: { true: 'Y', false: 'N' } }])).to.equal('Y');
  });

  it('does not read map entries from the prototype', () => {
    expect(applyTransforms('constructor', [{ map: {} }])).to.equal('constructor');
    expect(applyTransforms('toString', [{ map: {}, default: 'X' }])).to.equal('X');
  });

  it('leaves out a value that ends up empty', () => {
    expect(applyTransforms('n/a', ['digits'])).to.equal(undefined);
    expect(applyTransforms('   ', ['trim'])).to.equal(undefined);
  });
});
