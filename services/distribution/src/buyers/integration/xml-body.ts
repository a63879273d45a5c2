import type * as Xmldom from '@xmldom/xmldom';
import type { Node as DomNode } from '@xmldom/xmldom';
import { lazyModule } from '../../lazy-module.js';

const xmldom = lazyModule<typeof Xmldom>('@xmldom/xmldom');

import type { BodyEntry } from './request-body.js';
import { RequestBuildError } from './request-build-error.js';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
export const SOAP_11_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';

/** An XML name, with at most one namespace prefix (ASCII: what buyers' schemas use). */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?$/;
/** Characters XML 1.0 cannot carry at all, escaped or not. */
const NOT_XML_CHARACTER = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** `{{name}}`: where a template takes the mapping's value of that name. */
export const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
export const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function checkCharacters(text: string): string {
  if (NOT_XML_CHARACTER.test(text))
    throw new RequestBuildError('invalid_xml_character', 'a value holds a character XML cannot carry');
  return text;
}

/** Element text: markup escaped, and CR as a reference so that a parser does not turn it into LF. */
export function escapeXmlText(text: string): string {
  return checkCharacters(text).replace(
    /[&<>\r]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' })[c]!,
  );
}

/** An attribute value in either quotes; tab and line breaks as references, which attribute normalization keeps. */
export function escapeXmlAttribute(text: string): string {
  return checkCharacters(text).replace(
    /[&<>"'\t\n\r]/g,
    (c) =>
      ({
        '&': '&amp;',
        '<': '&lt;',
        '>': '&gt;',
        '"': '&quot;',
        "'": '&apos;',
        '\t': '&#9;',
        '\n': '&#10;',
        '\r': '&#13;',
      })[c]!,
  );
}

// ---------------------------------------------------------------- element paths

/** "Lead/Applicant/Name" -> elements, and the attribute a last "@name" segment sets. */
function splitElementPath(key: string): { elements: string[]; attribute: string | undefined } {
  const segments = key.split('/');
  const last = segments[segments.length - 1];
  return last.startsWith('@')
    ? { elements: segments.slice(0, -1), attribute: last.slice(1) }
    : { elements: segments, attribute: undefined };
}

/**
 * What is wrong with mapping keys as element paths ("Lead/Applicant/SSN", "Lead/@version"), key by key:
 * every path names elements under one root, may end in one attribute, and an element holds either
 * text or child elements, not both.
 */
export function elementPathProblems(keys: readonly string[]): { key: string; message: string }[] {
  const problems: { key: string; message: string }[] = [];
  const valued = new Set<string>();
  for (const key of keys) {
    const { elements, attribute } = splitElementPath(key);
    if (attribute === undefined) valued.add(elements.join('/'));
  }
  const root = splitElementPath(keys[0] ?? '').elements[0];
  for (const key of keys) {
    const { elements, attribute } = splitElementPath(key);
    if (
      elements.length === 0 ||
      !elements.every((name) => XML_NAME.test(name)) ||
      (attribute !== undefined && !XML_NAME.test(attribute))
    ) {
      problems.push({
        key,
        message:
          'must be an element path of XML names such as Lead/Applicant/FirstName, optionally ending in /@attribute',
      });
    } else if (elements[0] !== root) {
      problems.push({
        key,
        message: `must start at the root element ${root}, as the first key does: an XML document has one root`,
      });
    } else {
      const parent = elements
        .slice(1)
        .map((_, index) => elements.slice(0, index + 1).join('/'))
        .find((prefix) => valued.has(prefix));
      if (parent !== undefined)
        problems.push({
          key,
          message: `is inside ${parent}, which holds a value: an element holds text or elements, not both`,
        });
    }
  }
  return problems;
}

interface XmlElement {
  name: string;
  attributes: [string, string][];
  children: XmlElement[];
  text: string | undefined;
}

function element(name: string): XmlElement {
  return { name, attributes: [], children: [], text: undefined };
}

function serialize(node: XmlElement): string {
  const attributes = node.attributes.map(([name, value]) => ` ${name}="${escapeXmlAttribute(value)}"`).join('');
  const content = (node.text === undefined ? '' : escapeXmlText(node.text)) + node.children.map(serialize).join('');
  return content === '' ? `<${node.name}${attributes}/>` : `<${node.name}${attributes}>${content}</${node.name}>`;
}

/**
 * The elements the entries' paths make, in mapping order, under `root` (written even when every value
 * is absent). The paths must be free of problems (see elementPathProblems).
 */
export function elementsXml(root: string, entries: readonly BodyEntry[]): string {
  const top = element(root);
  for (const [key, value] of entries) {
    const { elements, attribute } = splitElementPath(key);
    let node = top;
    for (const name of elements.slice(1)) {
      let child = node.children.find((candidate) => candidate.name === name);
      if (!child) {
        child = element(name);
        node.children.push(child);
      }
      node = child;
    }
    if (attribute === undefined) node.text = String(value);
    else node.attributes.push([attribute, String(value)]);
  }
  return serialize(top);
}

// ---------------------------------------------------------------- templates

/**
 * The template with each `{{name}}` replaced by that entry's value, escaped for where it stands (an
 * attribute value or element text: the only places a parsed template may hold one); an absent value
 * is empty.
 */
export function filledTemplate(template: string, entries: readonly BodyEntry[]): string {
  const values = new Map(entries.map(([key, value]) => [key, String(value)]));
  return template.replace(PLACEHOLDER, (_, name: string) => escapeXmlAttribute(values.get(name) ?? ''));
}

/** Private-use characters: valid in XML text and attribute values, never in a name. */
const MARKER = '\uE000';

/** Markers in text nodes and attribute values; a walk with its own stack, however deep the template nests. */
function markersIn(root: DomNode): number {
  const TEXT = 3;
  const ELEMENT = 1;
  let count = 0;
  const stack: DomNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType === TEXT) count += (node.nodeValue ?? '').split(MARKER).length - 1;
    if (node.nodeType === ELEMENT) {
      const { attributes } = node as unknown as { attributes: ArrayLike<{ value: string }> };
      for (let index = 0; index < attributes.length; index++) count += attributes[index].value.split(MARKER).length - 1;
    }
    for (let child = node.firstChild; child; child = child.nextSibling) stack.push(child);
  }
  return count;
}

/**
 * The template as a DOM, else undefined when it is not well-formed or has a DOCTYPE (a request never
 * needs one). A template is the operator's own text, checked once at apply, not a buyer's reply: it is
 * parsed whole rather than under the reply parser's caps, so a large SOAP body is taken as written.
 */
function parseTemplate(text: string): DomNode | undefined {
  if (/<!DOCTYPE/i.test(text)) return undefined;
  const parser = new (xmldom().DOMParser)({
    locator: false,
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(message);
    },
  });
  try {
    return parser.parseFromString(text, 'text/xml') as unknown as DomNode;
  } catch {
    return undefined;
  }
}

/**
 * Why a template cannot be used, or undefined: it must be well-formed XML (for SOAP, the content of
 * the Body) without a DOCTYPE, and each placeholder must stand in an element's text or an attribute's
 * value, where an escaped value is always well-formed; never in a name, a comment or CDATA.
 */
export function templateProblem(template: string, soap: boolean): string | undefined {
  if (NOT_XML_CHARACTER.test(template) || template.includes(MARKER)) return 'holds characters XML cannot carry';
  let placeholders = 0;
  const marked = template.replace(PLACEHOLDER, () => {
    placeholders++;
    return MARKER;
  });
  const document = parseTemplate(soap ? soapEnvelope(marked) : marked);
  if (!document) return `must be well-formed XML without a DOCTYPE${soap ? ': the content of the SOAP Body' : ''}`;
  if (markersIn(document) !== placeholders) {
    return 'must have each {{placeholder}} in an element text or an attribute value (not in a name, comment or CDATA)';
  }
  return undefined;
}

/** The names the template's placeholders use, in order, repeats included. */
export function placeholderNames(template: string): string[] {
  return Array.from(template.matchAll(PLACEHOLDER), (match) => match[1]);
}

// ---------------------------------------------------------------- documents

export function soapEnvelope(body: string): string {
  return `<soap:Envelope xmlns:soap="${SOAP_11_NAMESPACE}"><soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** A whole document: SOAP content wrapped in its envelope; a declaration unless a template wrote its own. */
export function xmlDocument(content: string, soap: boolean): string {
  if (soap) return XML_DECLARATION + soapEnvelope(content);
  return content.trimStart().startsWith('<?xml') ? content : XML_DECLARATION + content;
}
