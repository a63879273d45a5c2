import { declaresUtf8 } from '@leadflow/gateway/src/intake/utf8-json';
import { expect } from 'chai';

describe('declaresUtf8', () => {
  it('takes a JSON Content-Type without a charset, or with one that names UTF-8, in any case or quoted', () => {
    for (const contentType of [
      undefined,
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'application/json; charset=utf8',
      'application/json; foo=bar; CHARSET=Utf-8',
    ]) {
      expect(declaresUtf8(contentType), String(contentType)).to.equal(true);
    }
  });

  it('refuses any other charset, and an empty one', () => {
    for (const contentType of [
      'application/json; charset=latin1',
      'application/json; charset=ISO-8859-1',
      'application/json; charset="utf-16"',
      'application/json; charset=utf-8x',
      'application/json; charset=',
    ]) {
      expect(declaresUtf8(contentType), contentType).to.equal(false);
    }
  });
});
