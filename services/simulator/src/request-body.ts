import type { IncomingMessage } from 'node:http';
import { DOMParser, type Element } from '@xmldom/xmldom';

const MAX_BODY_BYTES = 1024 * 1024;

export type RequestFields = Record<string, unknown>;

/** A body the simulator will not read; `status` is the HTTP answer. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

export async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, `body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A lead as buyers receive it: a GET's query string, or a body chosen by Content-Type: a JSON object, an
 * urlencoded form, or XML (a SOAP envelope read from its Body).
 */
export async function readFields(request: IncomingMessage): Promise<RequestFields> {
  if (request.method === 'GET') return Object.fromEntries(new URL(request.url ?? '/', 'http://simulator').searchParams);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const isJson = mediaType === 'application/json' || mediaType.endsWith('+json');
  const isXml = mediaType === 'application/xml' || mediaType === 'text/xml' || mediaType.endsWith('+xml');
  if (!isJson && !isXml && mediaType !== 'application/x-www-form-urlencoded') {
    throw new BodyError(415, 'expected application/json, application/x-www-form-urlencoded or XML');
  }
  const text = await readText(request);
  if (isXml) return xmlFields(text);
  if (!isJson) return Object.fromEntries(new URLSearchParams(text));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BodyError(400, 'body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BodyError(400, 'body must be a JSON object');
  return body as RequestFields;
}

const ELEMENT_NODE = 1;

function childElements(element: Element): Element[] {
  const children: Element[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling)
    if (node.nodeType === ELEMENT_NODE) children.push(node as Element);
  return children;
}

/** An element as fields: its attributes and child elements by local name, a leaf element as its text. */
function elementFields(element: Element): RequestFields {
  const fields: RequestFields = {};
  for (let index = 0; index < element.attributes.length; index++) {
    const attribute = element.attributes[index];
    if (attribute.name !== 'xmlns' && !attribute.name.startsWith('xmlns:'))
      fields[attribute.localName ?? attribute.name] = attribute.value;
  }
  for (const child of childElements(element)) {
    fields[child.localName ?? child.nodeName] =
      childElements(child).length > 0 ? elementFields(child) : (child.textContent ?? '');
  }
  return fields;
}

/** An XML lead: the root element's fields, or for a SOAP envelope those of its Body. No DOCTYPE. */
function xmlFields(text: string): RequestFields {
  if (/<!DOCTYPE/i.test(text)) throw new BodyError(400, 'body must not have a DOCTYPE');
  let root: Element | null;
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    root = parser.parseFromString(text, 'text/xml').documentElement;
  } catch {
    throw new BodyError(400, 'body is not well-formed XML');
  }
  if (!root) throw new BodyError(400, 'body is not well-formed XML');
  if (root.localName === 'Envelope') {
    const body = childElements(root).find((child) => child.localName === 'Body');
    if (!body) throw new BodyError(400, 'SOAP envelope without a Body');
    return elementFields(body);
  }
  return { [root.localName ?? root.nodeName]: elementFields(root) };
}
