import type * as Xmldom from '@xmldom/xmldom';
import type { Attr, Document, Element, Node } from '@xmldom/xmldom';
import { lazyModule } from '../../lazy-module.js';

const xmldom = lazyModule<typeof Xmldom>('@xmldom/xmldom');

import type { NameTest, Predicate, Step, XPathExpression } from './xml-path.js';

/**
 * Caps on an XML reply, checked on its raw text before it is parsed (a linear scan of its tags), so that
 * neither the parser nor a path ever sees more: real replies are a few dozen elements, and at these caps
 * the worst reply costs a few milliseconds (docs/security.md, "Buyers"). Comments, CDATA sections and processing
 * instructions count as markup too.
 */
export const MAX_XML_MARKUP = 512;
export const MAX_XML_ATTRIBUTES = 512;
export const MAX_XML_DEPTH = 32;

/** A reply over the caps: refused unread. */
export class ReplyTooComplexError extends Error {
  constructor(what: string) {
    super(`reply too complex: ${what}`);
    this.name = 'ReplyTooComplexError';
  }
}

const ELEMENT_NODE = 1;
const ATTRIBUTE_NODE = 2;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

/**
 * A well-formed XML document, else undefined; throws ReplyTooComplexError over the caps. A reply with a
 * DOCTYPE is refused outright: a buyer's answer never needs one, and it is where XXE and entity-expansion
 * attacks live. (xmldom neither fetches external entities nor expands DTD-declared ones anyway: a
 * reference to one is an "entity not found" error, which is also a refusal here.)
 */
export function parseXml(body: string): XmlDocument | undefined {
  if (/<!DOCTYPE/i.test(body)) return undefined;
  checkMarkupCounts(body);
  const parser = new (xmldom().DOMParser)({
    locator: false,
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(message);
    },
  });
  let document: Document;
  try {
    document = parser.parseFromString(body, 'text/xml');
  } catch {
    return undefined;
  }
  return new XmlDocument(document);
}

const SECTIONS: readonly (readonly [string, string])[] = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
  ['<!', '>'],
];

/**
 * Counts markup, attributes and element depth the way the parser will see them, and throws
 * ReplyTooComplexError past a cap. Text that is not well-formed may be counted loosely; the parser refuses it.
 */
function checkMarkupCounts(body: string): void {
  let markup = 0;
  let attributes = 0;
  let depth = 0;
  let index = body.indexOf('<');
  while (index >= 0) {
    if (++markup > MAX_XML_MARKUP) throw new ReplyTooComplexError(`more than ${MAX_XML_MARKUP} tags`);
    const section = SECTIONS.find(([open]) => body.startsWith(open, index));
    if (section) {
      const end = body.indexOf(section[1], index + section[0].length);
      if (end < 0) return;
      index = body.indexOf('<', end + section[1].length);
      continue;
    }
    const closing = body[index + 1] === '/';
    // To the tag's ">", past quoted attribute values (which may hold ">").
    let cursor = index + 1;
    let quote = 0;
    for (; cursor < body.length; cursor++) {
      const code = body.charCodeAt(cursor);
      if (quote !== 0) {
        if (code === quote) quote = 0;
      } else if (code === 34 /* " */ || code === 39 /* ' */) {
        quote = code;
      } else if (code === 61 /* = */) {
        if (++attributes > MAX_XML_ATTRIBUTES)
          throw new ReplyTooComplexError(`more than ${MAX_XML_ATTRIBUTES} attributes`);
      } else if (code === 62 /* > */) {
        break;
      }
    }
    if (closing) depth--;
    else if (body[cursor - 1] !== '/' && ++depth > MAX_XML_DEPTH)
      throw new ReplyTooComplexError(`nested more than ${MAX_XML_DEPTH} levels`);
    index = body.indexOf('<', cursor + 1);
  }
}

/** A parsed reply, its nodes numbered in document order once, so that a path's first node is known. */
export class XmlDocument {
  private readonly order = new Map<Node, number>();
  private readonly namespaces: Record<string, string>;

  constructor(private readonly document: Document) {
    this.namespaces = rootNamespaces(document);
    this.number();
  }

  /**
   * The text an expression finds: the first node's text (an attribute's value) or the function's value;
   * undefined when it finds nothing. Throws on a prefix the root element does not declare.
   */
  select(expression: XPathExpression): string | undefined {
    const nodes = this.evaluate(expression);
    switch (expression.fn) {
      case 'count':
        return String(nodes.length);
      case 'boolean':
        return String(nodes.length > 0);
      case 'string':
        return nodes.length === 0 ? '' : stringValue(nodes[0]);
      case 'normalize-space':
        return nodes.length === 0
          ? ''
          : stringValue(nodes[0])
              .replace(/[ \t\r\n]+/g, ' ')
              .trim();
      case undefined:
        return nodes.length === 0 ? undefined : stringValue(nodes[0]);
    }
  }

  /** Preorder numbering (attributes right after their element), refusing a tree deeper than MAX_XML_DEPTH. */
  private number(): void {
    const stack: { node: Node; depth: number }[] = [{ node: this.document, depth: 0 }];
    while (stack.length > 0) {
      const { node, depth } = stack.pop()!;
      if (node.nodeType === ELEMENT_NODE && depth > MAX_XML_DEPTH)
        throw new ReplyTooComplexError(`nested more than ${MAX_XML_DEPTH} levels`);
      this.order.set(node, this.order.size);
      if (node.nodeType === ELEMENT_NODE) {
        const { attributes } = node as Element;
        for (let index = 0; index < attributes.length; index++)
          this.order.set(attributes.item(index)!, this.order.size);
      }
      const children = node.childNodes;
      for (let index = children.length - 1; index >= 0; index--)
        stack.push({ node: children.item(index)!, depth: depth + 1 });
    }
  }

  /** The nodes the path finds, in document order; every step visits each node at most once. */
  private evaluate(expression: XPathExpression): Node[] {
    let context: Node[] = [this.document];
    for (const step of expression.steps) {
      if (step.axis === 'descendant') context = this.descendantsOrSelf(context);
      context = this.step(step, context);
    }
    return context.sort((a, b) => this.order.get(a)! - this.order.get(b)!);
  }

  private descendantsOrSelf(context: Node[]): Node[] {
    const visited = new Set<Node>();
    const found: Node[] = [];
    for (const start of context) {
      const stack = [start];
      while (stack.length > 0) {
        const node = stack.pop()!;
        // A node seen before had its whole subtree walked then.
        if (visited.has(node)) continue;
        visited.add(node);
        found.push(node);
        const children = node.childNodes;
        for (let index = children.length - 1; index >= 0; index--) {
          const child = children.item(index)!;
          if (child.nodeType === ELEMENT_NODE) stack.push(child);
        }
      }
    }
    return found;
  }

  private step(step: Step, context: Node[]): Node[] {
    if (step.axis === 'self') return context;
    const found: Node[] = [];
    for (const node of context) {
      if (step.axis === 'attribute') {
        if (node.nodeType === ELEMENT_NODE) found.push(...this.attributesOf(node as Element, step.test));
        continue;
      }
      if (step.test === 'text()') {
        found.push(
          ...childList(node).filter((child) => child.nodeType === TEXT_NODE || child.nodeType === CDATA_SECTION_NODE),
        );
        continue;
      }
      const { test, predicates } = step;
      let matches = childList(node).filter(
        (child) => child.nodeType === ELEMENT_NODE && this.isNamed(child as Element | Attr, test),
      );
      for (const predicate of predicates) {
        matches = matches.filter((child, index) => this.holds(predicate, child as Element, index + 1));
      }
      found.push(...matches);
    }
    return found;
  }

  private holds(predicate: Predicate, element: Element, position: number): boolean {
    if ('position' in predicate) return position === predicate.position;
    if ('localName' in predicate) return element.localName === predicate.localName;
    if ('text' in predicate) {
      return childList(element).some(
        (child) =>
          (child.nodeType === TEXT_NODE || child.nodeType === CDATA_SECTION_NODE) && child.nodeValue === predicate.text,
      );
    }
    if ('attribute' in predicate) {
      return this.attributesOf(element, predicate.attribute).some(
        (attribute) => predicate.equals === undefined || attribute.value === predicate.equals,
      );
    }
    return childList(element).some(
      (child) =>
        child.nodeType === ELEMENT_NODE &&
        this.isNamed(child as Element, predicate.child) &&
        stringValue(child) === predicate.equals,
    );
  }

  private attributesOf(element: Element, test: NameTest): Attr[] {
    const found: Attr[] = [];
    for (let index = 0; index < element.attributes.length; index++) {
      const attribute = element.attributes.item(index)!;
      // Namespace declarations are not attributes to XPath.
      if (attribute.name === 'xmlns' || attribute.prefix === 'xmlns') continue;
      if (this.isNamed(attribute, test)) found.push(attribute);
    }
    return found;
  }

  private isNamed(node: Element | Attr, test: NameTest): boolean {
    if (test === '*') return true;
    if (node.localName !== test.local) return false;
    if (test.prefix === undefined) return !node.namespaceURI;
    const uri = this.namespaces[test.prefix];
    if (uri === undefined) throw new Error(`undeclared prefix ${test.prefix}`);
    return node.namespaceURI === uri;
  }
}

function childList(node: Node): Node[] {
  const children: Node[] = [];
  for (let index = 0; index < node.childNodes.length; index++) children.push(node.childNodes.item(index)!);
  return children;
}

function stringValue(node: Node): string {
  if (node.nodeType === ATTRIBUTE_NODE) return (node as Attr).value;
  return node.textContent ?? '';
}

/** Prefixes declared on the root element (`soap:`, `ns1:`), the ones a path may use. */
function rootNamespaces(document: Document): Record<string, string> {
  const namespaces: Record<string, string> = Object.create(null);
  const attributes = document.documentElement?.attributes;
  for (let index = 0; index < (attributes?.length ?? 0); index++) {
    const attribute = attributes!.item(index)!;
    if (attribute.prefix === 'xmlns') namespaces[attribute.localName!] = attribute.value;
  }
  return namespaces;
}
