import type { ResponseParser } from '../definition/buyer-definition.js';
import { cachedLinearPattern, PatternError } from '../rules/linear-pattern.js';
import { InvalidLocatorError, type ReplyDocument, ReplyTooComplexError, readReplyDocument } from './reply-document.js';
import { cleanText, httpUrl, parsePriceCents } from './reply-values.js';

export interface BuyerReply {
  outcome: 'accepted' | 'rejected' | 'error';
  /** Price (post) or bid (ping); set only on an acceptance whose parser names a price. */
  priceCents?: number;
  reason?: string;
  /** The buyer's own id for the lead. */
  reference?: string;
  /** Only an absolute https URL (http too from a local buyer); anything else is dropped. */
  redirectUrl?: string;
  /** Why the reply is an error, as a code (see ReplyError here, and the call's own codes). */
  error?: string;
}

export type ReplyError =
  /** Any status outside 2xx; the body is not read. */
  | 'http_status'
  | 'empty_reply'
  | 'html_reply'
  | 'unparseable_reply'
  /** Over the caps that bound the cost of reading a reply (elements, attributes, depth, text length). */
  | 'reply_too_complex'
  /** The accepted locator finds nothing and no reason is found either. */
  | 'no_outcome'
  /** Accepted, but the price the parser names is not in the reply. */
  | 'no_price'
  /** Accepted at a price that is malformed, negative or above $10,000. */
  | 'invalid_price'
  /** A path in the parser that is not valid JSON path, XPath or regular expression. */
  | 'invalid_locator';

/**
 * A buyer's HTTP answer as an outcome. Only a 2xx reply that parses and whose accepted locator matches
 * is an acceptance:
 * - non-2xx, an empty body, an HTML page, a body that does not parse: error;
 * - the accepted locator finds a value that matches: accepted, unless the parser names a price and
 *   it is missing or invalid (error: never a sale at an unknown price);
 * - it finds a value that does not match: rejected;
 * - it finds nothing: rejected when the reason locator finds a reason (a buyer that only says why it
 *   declines), otherwise error.
 * Matching with `equals` and `in` ignores case and surrounding spaces; `matches` is the regular
 * expression as written (RE2 syntax), against a value of at most MAX_PATTERN_INPUT characters.
 *
 * The redirect URL goes to the publisher's user as it is: from a buyer not marked local only an https one
 * is kept (a plain-http one is dropped, the sale stands: the buyer already holds the lead).
 */
export function parseReply(
  parser: ResponseParser,
  status: number,
  contentType: string | undefined,
  body: string,
  options: { local: boolean },
): BuyerReply {
  if (status < 200 || status > 299) return failure('http_status');
  if (body.trim() === '') return failure('empty_reply');
  if (isHtml(parser, contentType, body)) return failure('html_reply');
  try {
    const document = readReplyDocument(parser.format, body);
    if (!document) return failure('unparseable_reply');
    return decide(parser, document, options.local);
  } catch (error) {
    if (error instanceof InvalidLocatorError) return failure('invalid_locator');
    if (error instanceof ReplyTooComplexError) return failure('reply_too_complex');
    throw error;
  }
}

/**
 * An HTML page (a proxy's or framework's error page) in place of the answer. XML buyers are judged on
 * the body alone, since PHP-style servers label everything text/html.
 */
function isHtml(parser: ResponseParser, contentType: string | undefined, body: string): boolean {
  const start = body.trimStart().slice(0, 20).toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return true;
  const labelledHtml = contentType?.split(';')[0].trim().toLowerCase() === 'text/html';
  return parser.format !== 'xml' && labelledHtml && start.startsWith('<');
}

function decide(parser: ResponseParser, document: ReplyDocument, local: boolean): BuyerReply {
  const verdict = document.locate(parser.accepted.path);
  const details = {
    reason: optionalText(document, parser.reason?.path),
    reference: optionalText(document, parser.reference?.path),
  };
  if (verdict === undefined) return details.reason ? reply('rejected', details) : failure('no_outcome');
  if (!isAcceptance(parser.accepted, verdict)) return reply('rejected', details);
  let priceCents: number | undefined;
  if (parser.price) {
    const price = document.locate(parser.price.path);
    if (price === undefined) return failure('no_price');
    priceCents = parsePriceCents(price);
    if (priceCents === undefined) return failure('invalid_price');
  }
  const redirect = parser.redirectUrl && document.locate(parser.redirectUrl.path);
  return reply('accepted', {
    ...details,
    priceCents,
    redirectUrl: redirect ? redirectUrl(redirect, local) : undefined,
  });
}

function redirectUrl(text: string, local: boolean): string | undefined {
  const url = httpUrl(text);
  return url !== undefined && (local || url.startsWith('https:')) ? url : undefined;
}

/** A verdict is a word or two; a longer one is never matched against a pattern. */
const MAX_VERDICT_LENGTH = 256;

function isAcceptance(accepted: ResponseParser['accepted'], value: string): boolean {
  if ('matches' in accepted) {
    if (value.length > MAX_VERDICT_LENGTH) return false;
    try {
      return cachedLinearPattern(accepted.matches).test(value);
    } catch (error) {
      if (error instanceof PatternError) throw new InvalidLocatorError(accepted.matches);
      throw error;
    }
  }
  const expected = 'equals' in accepted ? [accepted.equals] : accepted.in;
  return expected.some((candidate) => candidate.trim().toLowerCase() === value.toLowerCase());
}

function optionalText(document: ReplyDocument, path: string | undefined): string | undefined {
  const text = path === undefined ? undefined : document.locate(path);
  return text === undefined ? undefined : cleanText(text);
}

function failure(error: ReplyError): BuyerReply {
  return { outcome: 'error', error };
}

/** The reply without its absent parts, so that it compares and serializes cleanly. */
function reply(outcome: BuyerReply['outcome'], parts: Omit<BuyerReply, 'outcome'>): BuyerReply {
  const present: BuyerReply = { outcome };
  if (parts.reason !== undefined) present.reason = parts.reason;
  if (parts.reference !== undefined) present.reference = parts.reference;
  if (parts.priceCents !== undefined) present.priceCents = parts.priceCents;
  if (parts.redirectUrl !== undefined) present.redirectUrl = parts.redirectUrl;
  if (parts.error !== undefined) present.error = parts.error;
  return present;
}
