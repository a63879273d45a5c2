import type { BuyerRequest } from './request-builder.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An HTTP token (RFC 9110): what a header's name may be. */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** As node:http: a header value holds tabs, printable ASCII and Latin-1, sent as such; never CR, LF or NUL. */
export function isHeaderValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}

export class InvalidHeaderError extends Error {
  constructor() {
    // The header itself is never quoted: it may be a buyer's key.
    super('a request header has an invalid name or value');
    this.name = 'InvalidHeaderError';
  }
}

/**
 * The request as bytes on the wire: the request line, Host, the buyer's headers, Content-Length when it
 * has a body, then the body. Throws InvalidHeaderError for a header node:http would refuse too.
 * `path` and `host` come from a parsed URL, already percent-encoded.
 */
export function requestBytes(request: BuyerRequest, path: string, host: string): Buffer {
  let head = `${request.method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
  for (const name in request.headers) {
    const value = request.headers[name]!;
    if (!isHeaderName(name) || !isHeaderValue(value)) throw new InvalidHeaderError();
    head += `${name}: ${value}\r\n`;
  }
  if (request.body === undefined) return Buffer.from(`${head}\r\n`, 'latin1');
  head += `Content-Length: ${Buffer.byteLength(request.body)}\r\n\r\n`;
  // One buffer when the head is ASCII (as long in UTF-8 as in characters); Latin-1 values are sent as such.
  return Buffer.byteLength(head) === head.length
    ? Buffer.from(head + request.body)
    : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(request.body)]);
}
