import { parseJsonPath } from '../integration/json-path.js';
import { parseXPath } from '../integration/xml-path.js';
import { compileLinearPattern, type LinearPattern, PatternError } from '../rules/linear-pattern.js';
import type { PriceChangeRule, ReplyLocator, ResponseFormat, ResponseParser } from './buyer-definition.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { isAbsent, oneOf, orDefault, readChoice, readList, readObject, readText, required } from './read-values.js';

const FORMATS = ['json', 'xml', 'text'] as const satisfies readonly ResponseFormat[];
const MATCHERS = ['equals', 'in', 'matches'] as const;
const LOCATED = ['price', 'reason', 'reference', 'redirectUrl'] as const;
const PRICE_CHANGE_RULES = ['accept_lower', 'use_bid', 'reject'] as const satisfies readonly PriceChangeRule[];

/**
 * Steps of all the patterns of one text parser together: a text reply is matched once per locator, so
 * this bounds the work per reply (program steps x MAX_TEXT_REPLY characters).
 */
export const MAX_TEXT_PARSER_PROGRAM = 150;

const XPATH_SUBSET =
  "must be an XPath of the supported form: steps such as /response/status, //price, /a/@id, text(), predicates [1], [@x='v'], [name='v'], [local-name()='v'], optionally in count(), boolean(), string() or normalize-space()";

/** The compiled pattern, or the problem reported. */
function readPattern(text: string, path: string, problems: Problems): LinearPattern | undefined {
  try {
    return compileLinearPattern(text);
  } catch (error) {
    if (error instanceof PatternError) return problems.at(path, error.message);
    throw error;
  }
}

/**
 * A JSON path in the grammar the reply parser reads, an XPath, or for text a regular expression whose
 * group (or whole match, without one) is the value.
 */
function readReplyPath(
  value: unknown,
  path: string,
  format: ResponseFormat | undefined,
  problems: Problems,
): string | undefined {
  const text = readText(value, path, problems);
  if (text === undefined) return undefined;
  if (format === 'json' && parseJsonPath(text) === undefined) {
    return problems.at(path, "must be a JSON path of names, [index] and ['quoted name'], such as $.result.status");
  }
  if (format === 'xml' && parseXPath(text) === undefined) return problems.at(path, XPATH_SUBSET);
  if (format === 'text') {
    const pattern = readPattern(text, path, problems);
    if (pattern === undefined) return undefined;
    if (pattern.groups > 1)
      return problems.at(path, 'must be a regular expression with at most one capturing group, such as status=(\\w+)');
  }
  return text;
}

function readLocator(
  value: unknown,
  path: string,
  format: ResponseFormat | undefined,
  problems: Problems,
): ReplyLocator | undefined {
  if (typeof value === 'string') {
    const located = readReplyPath(value, path, format, problems);
    return located === undefined ? undefined : { path: located };
  }
  const fields = readObject(value, path, ['path'], problems, 'a path or {path}');
  if (!fields) return undefined;
  const located = required(fields.path, keyPath(path, 'path'), problems, (v) =>
    readReplyPath(v, keyPath(path, 'path'), format, problems),
  );
  return located === undefined ? undefined : { path: located };
}

/** Located values are text, so a number or true written in the file is compared as its text. */
function readExpected(value: unknown, path: string, problems: Problems): string | undefined {
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
    return String(value);
  return problems.at(path, 'must be a string, a number, true or false');
}

function readAccepted(
  value: unknown,
  path: string,
  format: ResponseFormat | undefined,
  problems: Problems,
): ResponseParser['accepted'] | undefined {
  const fields = readObject(value, path, ['path', ...MATCHERS], problems, '{path, equals|in|matches}');
  if (!fields) return undefined;
  const located = required(fields.path, keyPath(path, 'path'), problems, (v) =>
    readReplyPath(v, keyPath(path, 'path'), format, problems),
  );
  const matcher = oneOf(fields, MATCHERS, path, problems);
  if (matcher === undefined) return undefined;
  const at = keyPath(path, matcher);
  switch (matcher) {
    case 'equals': {
      const equals = readExpected(fields.equals, at, problems);
      return located === undefined || equals === undefined ? undefined : { path: located, equals };
    }
    case 'in': {
      const items = readList(fields.in, at, problems);
      const values = items?.map((item, index) => readExpected(item, indexPath(at, index), problems));
      if (located === undefined || !values?.every((item) => item !== undefined)) return undefined;
      return { path: located, in: values };
    }
    case 'matches': {
      const matches = readText(fields.matches, at, problems);
      if (matches !== undefined && readPattern(matches, at, problems) === undefined) return undefined;
      return located === undefined || matches === undefined ? undefined : { path: located, matches };
    }
  }
}

/** Why `price` is required where the reply carries the bid of a buyer priced by bid. */
const BID_PRICE_REQUIRED = {
  ping: 'is required: pricing is bid',
  post: "is required: pricing is bid, and without a ping the post's answer names the price (or use mode ping_post)",
};

/**
 * How a reply is read: `format` (json by default), `accepted: {path, equals|in|matches}`, and `price`,
 * `reason`, `reference`, `redirectUrl` each a path or `{path}`. A ping's reply has no redirect URL.
 * `priceChange` is for the post after a ping, and needs a price: what an answer naming another price
 * than the bid means. `carriesBid`: the reply is where a buyer priced by bid says its price.
 */
export function parseResponse(
  value: unknown,
  path: string,
  call: 'ping' | 'post' | 'postAfterPing',
  carriesBid: boolean,
  problems: Problems,
): ResponseParser | undefined {
  const fields = readObject(value, path, ['format', 'accepted', ...LOCATED, 'priceChange'], problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const format = orDefault(fields.format, 'json', (v) => readChoice(v, keyPath(path, 'format'), FORMATS, problems));
  const accepted = required(fields.accepted, keyPath(path, 'accepted'), problems, (v) =>
    readAccepted(v, keyPath(path, 'accepted'), format, problems),
  );
  if (carriesBid && isAbsent(fields.price))
    problems.at(keyPath(path, 'price'), BID_PRICE_REQUIRED[call === 'ping' ? 'ping' : 'post']);
  if (call === 'ping' && !isAbsent(fields.redirectUrl))
    problems.at(keyPath(path, 'redirectUrl'), 'is used only in a post response');
  const locate = (key: (typeof LOCATED)[number]): ReplyLocator | undefined =>
    isAbsent(fields[key]) ? undefined : readLocator(fields[key], keyPath(path, key), format, problems);
  const parser = {
    price: locate('price'),
    reason: locate('reason'),
    reference: locate('reference'),
    redirectUrl: call === 'ping' ? undefined : locate('redirectUrl'),
  };
  let priceChange: PriceChangeRule | undefined;
  if (!isAbsent(fields.priceChange)) {
    const at = keyPath(path, 'priceChange');
    if (call !== 'postAfterPing') problems.at(at, 'is used only in the post response of a ping_post buyer');
    else if (isAbsent(fields.price)) problems.at(at, 'needs price: the path of the price the answer names');
    else priceChange = readChoice(fields.priceChange, at, PRICE_CHANGE_RULES, problems);
  }
  if (problems.found.length > start || format === undefined || accepted === undefined) return undefined;
  if (format === 'text' && textProgram({ accepted, ...parser }) > MAX_TEXT_PARSER_PROGRAM) {
    return problems.at(
      path,
      `its patterns are too complex together (at most ${MAX_TEXT_PARSER_PROGRAM} steps): simplify them`,
    );
  }
  return { format, accepted, ...parser, ...(priceChange ? { priceChange } : {}) };
}

function textProgram(parser: Omit<ResponseParser, 'format'>): number {
  const paths = [parser.accepted, parser.price, parser.reason, parser.reference, parser.redirectUrl].flatMap(
    (locator) => (locator ? [locator.path] : []),
  );
  return paths.reduce((sum, text) => sum + compileLinearPattern(text).program, 0);
}
