import { parseJsonPath, selectJsonPath } from '@leadflow/distribution/src/buyers/integration/json-path';
import { expect } from 'chai';

describe('JSON path', () => {
  it('parses the supported forms', () => {
    expect(parseJsonPath('$')).to.deep.equal([]);
    expect(parseJsonPath('$.a.b')).to.deep.equal(['a', 'b']);
    expect(parseJsonPath('$.a[0].b')).to.deep.equal(['a', 0, 'b']);
    expect(parseJsonPath("$['key with space']")).to.deep.equal(['key with space']);
    expect(parseJsonPath('$["double"]["it\\"s"]')).to.deep.equal(['double', 'it"s']);
    expect(parseJsonPath("$['it\\'s'].x")).to.deep.equal(["it's", 'x']);
    expect(parseJsonPath('a.b')).to.deep.equal(['a', 'b']);
    expect(parseJsonPath('a[2]')).to.deep.equal(['a', 2]);
    expect(parseJsonPath('[1].id')).to.deep.equal([1, 'id']);
    expect(parseJsonPath('$.lead-id.x_y')).to.deep.equal(['lead-id', 'x_y']);
  });

  it('refuses what it does not support', () => {
    for (const path of ['', '$.', '$..a', '$.a.', '$.a[*]', '$[-1]', "$['open", '$.a[0', '$a', 'a..b', '$.a[?(@.x)]']) {
      expect(parseJsonPath(path), path).to.equal(undefined);
    }
  });

  it('selects values, undefined when a step is missing', () => {
    const root = { a: { b: [10, { c: 'x' }] }, 'key with space': true };
    expect(selectJsonPath(root, ['a', 'b', 1, 'c'])).to.equal('x');
    expect(selectJsonPath(root, ['a', 'b', '0'])).to.equal(10);
    expect(selectJsonPath(root, ['key with space'])).to.equal(true);
    expect(selectJsonPath(root, ['a', 'missing', 'c'])).to.equal(undefined);
    expect(selectJsonPath(root, ['a', 'b', 5])).to.equal(undefined);
    expect(selectJsonPath(root, ['a', 0])).to.equal(undefined);
    expect(selectJsonPath('text', ['length'])).to.equal(undefined);
    expect(selectJsonPath(root, ['a', 'b', 'length'])).to.equal(undefined);
  });
});
