import { jsonSyntaxError } from '@leadflow/cli/src/json-syntax';
import { expect } from 'chai';
import fc from 'fast-check';

describe('leadflow CLI: where a text stops being JSON', () => {
  it('finds nothing wrong in JSON', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e+3, true, false, null, "x\\n\\u00e9"], "b": {}} ', '"s"', '0']) {
      expect(jsonSyntaxError(text), text).to.equal(undefined);
    }
  });

  it('places each kind of mistake, in words that quote nothing of the text', () => {
    const cases: [string, number, string][] = [
      [
        '{"auth":{"bearer":"Pw-1234567", "b": Secret123}}',
        37,
        'expected a value: an object, a list, a string, a number, true, false or null',
      ],
      ['{\n  "buyers": [],\n}', 18, 'expected a property name in double quotes'],
      ['{"a" 1}', 5, 'expected ":" after a property name'],
      ['{"a": 1 "b": 2}', 8, 'expected "," or "}" after a property value'],
      ['[1 2]', 3, 'expected "," or "]" after an item'],
      ['{"a": 1} {}', 9, 'more follows the end of the document'],
      ['{"a": [1,', 9, 'the text ends before the document does'],
      ['{"a": "Secret', 6, 'a string that starts here is not closed'],
      ['{"a": "Sec\nret"}', 10, 'a string holds a line break or a control character: escape it'],
      ['{"a": "Sec\\qret"}', 10, 'a string holds an invalid escape sequence'],
      ['{"a": 01}', 7, 'expected "," or "}" after a property value'],
      ['{"a": tru}', 6, 'expected a value: an object, a list, a string, a number, true, false or null'],
    ];
    for (const [text, offset, message] of cases) {
      expect(jsonSyntaxError(text), text).to.deep.equal({ offset, message });
    }
  });

  it('takes any depth of nesting', () => {
    expect(jsonSyntaxError(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).to.equal(undefined);
    expect(jsonSyntaxError(`${'['.repeat(200_000)}}`)).to.deep.include({ offset: 200_000 });
  });

  it('agrees with JSON.parse on JSON and on JSON with a character changed, added or removed', () => {
    const nearJson = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', ' ', ',', ':', '"', '\\', '{', '}', '[', ']', '\n', 'x', '0', '-'),
        fc.boolean(),
      )
      .map(([json, at, char, replace]) => {
        const index = json.length === 0 ? 0 : at % json.length;
        return json.slice(0, index) + char + json.slice(index + (replace ? 1 : 0));
      });
    fc.assert(
      fc.property(nearJson, (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        expect(jsonSyntaxError(text) === undefined, text).to.equal(parses);
      }),
      { numRuns: 2000 },
    );
  });
});
