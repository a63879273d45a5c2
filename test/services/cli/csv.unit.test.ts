import { csvLine } from '@leadflow/cli/src/csv';
import { expect } from 'chai';

describe('CSV lines', () => {
  it('neutralises cells a spreadsheet would run as formulas', () => {
    expect(csvLine(['=1+1', '+1+1', '-1+1', '@SUM(A1:A2)', '\t=1', '\r=1'])).to.equal(
      `'=1+1,'+1+1,'-1+1,'@SUM(A1:A2),'\t=1,"'\r=1"`,
    );
    expect(csvLine(['=HYPERLINK("https://evil.example","click")'])).to.equal(
      `"'=HYPERLINK(""https://evil.example"",""click"")"`,
    );
  });

  it('leaves numbers, negative ones included, and other text as they are', () => {
    expect(csvLine(['-12.50', '0.75', '42', '-3', 'Acme', 'a=b', '', 'total'])).to.equal(
      '-12.50,0.75,42,-3,Acme,a=b,,total',
    );
    expect(csvLine(['-', '-1e5', '--1'])).to.equal(`'-,'-1e5,'--1`);
  });
});
