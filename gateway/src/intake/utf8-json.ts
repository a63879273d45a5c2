import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { GatewayError } from '../errors.js';

/** A `charset` parameter of a Content-Type, its value bare or quoted. */
const CHARSET_PARAMETER = /;\s*charset=(?:"([^"]*)"|([^;\s]*))/i;
const UTF8 = /^utf-?8$/i;

/**
 * Whether a JSON body sent with this Content-Type is UTF-8, as RFC 8259 requires: no charset, or one
 * that names UTF-8 (`utf-8`, or the common `utf8`, in any case).
 */
export function declaresUtf8(contentType: string | undefined): boolean {
  const charset = CHARSET_PARAMETER.exec(contentType ?? '');
  return charset === null || UTF8.test(charset[1] ?? charset[2] ?? '');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The intake's JSON parser: Fastify's own, given the body only as UTF-8 text. Fastify's reads any body as
 * UTF-8 and turns bytes that are not into U+FFFD, which a name then holds as a character: a body in another
 * charset (José in Latin-1) was stored as "Jos\uFFFD". A `__proto__` key, and a `constructor` holding a
 * `prototype`, are removed from the parsed body as the unknown fields they are (refusing them would refuse
 * valid JSON); JSON.parse makes them own properties, so nothing reaches a prototype either way.
 */
export function utf8JsonParser(app: FastifyInstance): FastifyBodyParser<Buffer> {
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  return (request, body, done) => {
    if (!declaresUtf8(request.headers['content-type'])) return done(GatewayError.of('UNSUPPORTED_CHARSET'));
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(GatewayError.badRequest({ body: 'must be UTF-8 text' }));
    }
    return parseJson(request, text, done);
  };
}
