/**
 * The XPath that buyer files use, evaluated by walking the document: each step visits every node at most
 * once, so a path costs (steps x nodes) at worst, where a general XPath engine (xpath@0.0.x) is quadratic
 * in sibling elements. The grammar:
 *
 *   expression  path | count(path) | boolean(path) | string(path) | normalize-space(path)
 *   path        ["/" | "//"] step (("/" | "//") step)*
 *   step        name predicate* | "*" predicate* | "@" name | "@*" | "text()" | "."
 *   predicate   [N] | [@name] | [@name='v'] | [name='v'] | [text()='v'] | [local-name()='v']
 *   name        local or prefix:local, the prefix declared on the root element
 *
 * Literals take single or double quotes. As in XPath 1.0, a name without a prefix matches only elements in
 * no namespace, and [N] counts among the step's matches under one parent.
 */

export type XPathFunction = 'count' | 'boolean' | 'string' | 'normalize-space';

export type NameTest = { prefix: string | undefined; local: string } | '*';

export type Predicate =
  | { position: number }
  | { attribute: NameTest; equals: string | undefined }
  | { child: NameTest; equals: string }
  | { text: string }
  | { localName: string };

export type Step =
  | { axis: 'child' | 'descendant'; test: NameTest; predicates: Predicate[] }
  | { axis: 'child' | 'descendant'; test: 'text()' }
  | { axis: 'attribute'; test: NameTest }
  | { axis: 'self' };

export interface XPathExpression {
  fn: XPathFunction | undefined;
  absolute: boolean;
  steps: Step[];
}

/** Longer paths are no buyer's reply locator; the cap bounds steps, and so the walk. */
export const MAX_XPATH_LENGTH = 256;

const NAME = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;
const INTEGER = /[1-9]\d{0,3}/y;
const FUNCTIONS: readonly XPathFunction[] = ['count', 'boolean', 'string', 'normalize-space'];

/** The expression, or undefined when it is not of the grammar above. */
export function parseXPath(text: string): XPathExpression | undefined {
  if (text.length > MAX_XPATH_LENGTH) return undefined;
  const reader = new Reader(text.trim());
  try {
    const fn = FUNCTIONS.find((name) => reader.text.startsWith(`${name}(`));
    if (fn) reader.expect(`${fn}(`);
    const path = readPath(reader);
    if (fn) reader.expect(')');
    if (!reader.done()) return undefined;
    return { fn, ...path };
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

class Reader {
  position = 0;
  constructor(readonly text: string) {}

  done(): boolean {
    return this.position === this.text.length;
  }

  take(token: string): boolean {
    if (!this.text.startsWith(token, this.position)) return false;
    this.position += token.length;
    return true;
  }

  expect(token: string): void {
    if (!this.take(token)) throw new SyntaxError(`expected ${token}`);
  }

  /** `=` with optional spaces around it, as in [@currency = 'USD']. */
  equalsSign(): boolean {
    const start = this.position;
    while (this.text[this.position] === ' ') this.position++;
    if (!this.take('=')) {
      this.position = start;
      return false;
    }
    while (this.text[this.position] === ' ') this.position++;
    return true;
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (!found) return undefined;
    this.position = pattern.lastIndex;
    return found[0];
  }

  literal(): string {
    const quote = this.text[this.position];
    if (quote !== "'" && quote !== '"') throw new SyntaxError('expected a literal');
    const end = this.text.indexOf(quote, this.position + 1);
    if (end < 0) throw new SyntaxError('unterminated literal');
    const value = this.text.slice(this.position + 1, end);
    this.position = end + 1;
    return value;
  }
}

function readPath(reader: Reader): { absolute: boolean; steps: Step[] } {
  const steps: Step[] = [];
  let absolute = false;
  let descendant = false;
  if (reader.take('//')) [absolute, descendant] = [true, true];
  else if (reader.take('/')) absolute = true;
  for (;;) {
    steps.push(readStep(reader, descendant));
    if (reader.take('//')) descendant = true;
    else if (reader.take('/')) descendant = false;
    else return { absolute, steps };
  }
}

function readNameTest(reader: Reader): NameTest {
  if (reader.take('*')) return '*';
  const name = reader.match(NAME);
  if (name === undefined) throw new SyntaxError('expected a name');
  const colon = name.indexOf(':');
  return colon < 0
    ? { prefix: undefined, local: name }
    : { prefix: name.slice(0, colon), local: name.slice(colon + 1) };
}

function readStep(reader: Reader, descendant: boolean): Step {
  const axis = descendant ? 'descendant' : 'child';
  if (reader.take('@')) {
    if (descendant) throw new SyntaxError('//@ is not supported');
    return { axis: 'attribute', test: readNameTest(reader) };
  }
  if (reader.take('text()')) return { axis, test: 'text()' };
  if (!descendant && reader.take('.')) return { axis: 'self' };
  const test = readNameTest(reader);
  const predicates: Predicate[] = [];
  while (reader.take('[')) {
    predicates.push(readPredicate(reader));
    reader.expect(']');
  }
  return { axis, test, predicates };
}

function readPredicate(reader: Reader): Predicate {
  const position = reader.match(INTEGER);
  if (position !== undefined) return { position: Number(position) };
  if (reader.take('local-name()')) return { localName: valueAfterEquals(reader) };
  if (reader.take('text()')) return { text: valueAfterEquals(reader) };
  if (reader.take('@')) {
    const attribute = readNameTest(reader);
    return { attribute, equals: reader.equalsSign() ? reader.literal() : undefined };
  }
  const child = readNameTest(reader);
  return { child, equals: valueAfterEquals(reader) };
}

function valueAfterEquals(reader: Reader): string {
  if (!reader.equalsSign()) throw new SyntaxError('expected =');
  return reader.literal();
}
