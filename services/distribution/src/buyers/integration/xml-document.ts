import { DOMParser, type Document } from '@xmldom/xmldom';
import xpath from 'xpath';

/**
 * A well-formed XML document, else undefined. A reply with a DOCTYPE is refused outright: a buyer's
 * answer never needs one, and it is where XXE and entity-expansion attacks live. (xmldom neither fetches
 * external entities nor expands DTD-declared ones anyway: a reference to one is an "entity not found"
 * error, which is also a refusal here.)
 */
export function parseXml(body: string): Document | undefined {
  if (/<!DOCTYPE/i.test(body)) return undefined;
  const parser = new DOMParser({
    locator: false,
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(message);
    },
  });
  try {
    return parser.parseFromString(body, 'text/xml');
  } catch {
    return undefined;
  }
}

/**
 * The text an XPath finds: the first node's text (an attribute's value) or the expression's string,
 * number or boolean value; undefined when it finds nothing. Prefixes declared on the root element
 * (`soap:`, `ns1:`) can be used in the path. Throws on an invalid expression.
 */
export function selectXPath(document: Document, path: string): string | undefined {
  const select = xpath.useNamespaces(rootNamespaces(document));
  const found = select(path, document as unknown as Node, true);
  if (found === null || found === undefined) return undefined;
  if (typeof found !== 'object') return String(found);
  return xpath.isAttribute(found) ? found.value : (found.textContent ?? undefined);
}

function rootNamespaces(document: Document): Record<string, string> {
  const namespaces: Record<string, string> = {};
  const attributes = document.documentElement?.attributes;
  for (let index = 0; index < (attributes?.length ?? 0); index++) {
    const attribute = attributes!.item(index)!;
    if (attribute.prefix === 'xmlns') namespaces[attribute.localName!] = attribute.value;
  }
  return namespaces;
}
