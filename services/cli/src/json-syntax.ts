/**
 * Where a text stops being JSON, as RFC 8259 and JSON.parse read it. JSON.parse tells neither
 * reliably: some of its messages have no position and quote the text around the mistake instead, and
 * a buyer file's text may be a password.
 */
export interface JsonSyntaxError {
  /** In UTF-16 code units, as JavaScript strings count. */
  offset: number;
  /** What is wrong there, in words that quote nothing of the text. */
  message: string;
}

const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;
/** From the space up, but the quote and the backslash: what a string holds as it is. */
const STRING_TEXT = /[ !#-[\]-\uffff]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})/y;

/** The length of what `pattern` (sticky) matches at `offset`. */
function matchLength(pattern: RegExp, text: string, offset: number): number {
  pattern.lastIndex = offset;
  return pattern.exec(text)?.[0].length ?? 0;
}

/** The offset just past the string that starts at `start` (its opening quote), or what is wrong in it. */
function stringEnd(text: string, start: number): number | JsonSyntaxError {
  let offset = start + 1;
  for (;;) {
    offset += matchLength(STRING_TEXT, text, offset);
    const char = text[offset];
    if (char === undefined) return { offset: start, message: 'a string that starts here is not closed' };
    if (char === '"') return offset + 1;
    if (char !== '\\') return { offset, message: 'a string holds a line break or a control character: escape it' };
    const escaped = matchLength(ESCAPE, text, offset);
    if (escaped === 0) return { offset, message: 'a string holds an invalid escape sequence' };
    offset += escaped;
  }
}

type State = 'value' | 'key' | 'afterValue';

/** The first syntax error of `text`, or undefined when it is JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  // The objects and lists open around the current position, innermost last: nesting has no limit.
  const open: ('{' | '[')[] = [];
  let offset = 0;
  let state: State = 'value';
  for (;;) {
    offset += matchLength(WHITESPACE, text, offset);
    const char = text[offset];
    const inside = open.at(-1);
    if (state === 'afterValue') {
      if (inside === undefined) {
        return char === undefined ? undefined : { offset, message: 'more follows the end of the document' };
      }
      if (char === ',') {
        state = inside === '{' ? 'key' : 'value';
        offset += 1;
      } else if (char === (inside === '{' ? '}' : ']')) {
        open.pop();
        offset += 1;
      } else {
        const expected = inside === '{' ? '"," or "}" after a property value' : '"," or "]" after an item';
        return { offset, message: `expected ${expected}` };
      }
      continue;
    }
    if (char === undefined) return { offset, message: 'the text ends before the document does' };
    if (state === 'key') {
      if (char !== '"') return { offset, message: 'expected a property name in double quotes' };
      const end = stringEnd(text, offset);
      if (typeof end !== 'number') return end;
      offset = end + matchLength(WHITESPACE, text, end);
      if (text[offset] !== ':') return { offset, message: 'expected ":" after a property name' };
      offset += 1;
      state = 'value';
      continue;
    }
    if (char === '{' || char === '[') {
      open.push(char);
      offset += 1;
      offset += matchLength(WHITESPACE, text, offset);
      const empty = text[offset] === (char === '{' ? '}' : ']');
      if (empty) open.pop();
      offset += empty ? 1 : 0;
      state = empty ? 'afterValue' : char === '{' ? 'key' : 'value';
      continue;
    }
    if (char === '"') {
      const end = stringEnd(text, offset);
      if (typeof end !== 'number') return end;
      offset = end;
    } else {
      const length = matchLength(NUMBER, text, offset) || matchLength(LITERAL, text, offset);
      if (length === 0) {
        return { offset, message: 'expected a value: an object, a list, a string, a number, true, false or null' };
      }
      offset += length;
    }
    state = 'afterValue';
  }
}
