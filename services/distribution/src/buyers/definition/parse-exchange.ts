import { checkDestination, isLoopbackName } from '../integration/destination.js';
import { isHeaderName, isHeaderValue } from '../integration/http-request-bytes.js';
import { PLACEHOLDER_NAME, placeholderNames, templateProblem } from '../integration/xml-body.js';
import type { HttpExchange, RequestFormat } from './buyer-definition.js';
import type { BuyerValues } from './buyer-values.js';
import { type CallKind, parseMapping } from './parse-mapping.js';
import { parseResponse } from './parse-response.js';
import { keyPath, type Problems } from './problems.js';
import {
  isAbsent,
  isPlainObject,
  oneOf,
  orDefault,
  readChoice,
  readObject,
  readText,
  required,
} from './read-values.js';
import { resolveReferences } from './value-references.js';

const KEYS = [
  'url',
  'testUrl',
  'method',
  'format',
  'template',
  'soapAction',
  'headers',
  'auth',
  'mapping',
  'response',
] as const;
const METHODS = ['POST', 'PUT', 'GET'] as const;
const BODY_FORMATS = ['json', 'form', 'xml', 'soap'] as const;

/** Headers the HTTP client sets from the request itself. */
const MANAGED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
/** Printable ASCII without spaces: what a token or a user name can hold in an Authorization header. */
const TOKEN_TEXT = /^[\x21-\x7E]+$/;
const LINE_BREAK = /[\r\n\0]/;

export interface ExchangeContext {
  call: CallKind;
  /** http:// allowed. */
  local: boolean;
  /** testBehaviour is test_url. */
  testUrlRequired: boolean;
  /** Where ${env:...} and ${secret:...} are looked up, to check that each resolves, and to a valid value. */
  values: BuyerValues;
  /** The buyer's pricing is bid, and this call's answer carries the bid: its response must locate a price. */
  carriesBid: boolean;
}

/**
 * The text as written, once its references resolve (reported with the path otherwise) and `check`
 * accepts what they resolve to. A message never holds the value, resolved or not.
 */
function withReferences(
  text: string,
  path: string,
  values: BuyerValues,
  problems: Problems,
  check: (resolved: string) => boolean,
): string | undefined {
  const resolved = resolveReferences(text, values);
  if ('problem' in resolved) return problems.at(path, resolved.problem);
  return check(resolved.value) ? text : undefined;
}

/** Reports a mistake; false, for checks that report as they go. */
function refused(path: string, message: string, problems: Problems): false {
  problems.at(path, message);
  return false;
}

function readUrl(value: unknown, path: string, context: ExchangeContext, problems: Problems): string | undefined {
  const text = readText(value, path, problems);
  if (text === undefined) return undefined;
  return withReferences(
    text,
    path,
    context.values,
    problems,
    (resolved) => checkUrl(resolved, path, context.local, problems) !== undefined,
  );
}

function checkUrl(text: string, path: string, local: boolean, problems: Problems): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return problems.at(path, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) {
    return problems.at(
      path,
      local
        ? 'must be an http:// or https:// URL'
        : 'must be an https:// URL; only a buyer marked local: true may use http://',
    );
  }
  // Credentials in a URL end up in logs; auth keeps them apart.
  if (url.username !== '' || url.password !== '')
    return problems.at(path, 'must not hold a user name or password; use auth');
  // What every call would refuse (a non-public IP literal), or a name that is this host. Other names are
  // checked on the addresses they resolve to when each call connects.
  if (!local && ('refused' in checkDestination(text, false) || isLoopbackName(url.hostname))) {
    return problems.at(
      path,
      'must be on a public address; only a buyer marked local: true may use a private, loopback, link-local or reserved address, or localhost',
    );
  }
  return text;
}

function parseHeaders(
  value: unknown,
  path: string,
  values: BuyerValues,
  problems: Problems,
): Record<string, string> | undefined {
  if (!isPlainObject(value)) return problems.at(path, 'must be an object of header name -> value');
  const start = problems.found.length;
  const seen = new Set<string>();
  const entries: [string, string][] = [];
  for (const [name, headerValue] of Object.entries(value)) {
    const at = keyPath(path, name);
    const lower = name.toLowerCase();
    if (!isHeaderName(name)) problems.at(at, 'is not a valid header name');
    else if (MANAGED_HEADERS.has(lower)) problems.at(at, 'is set by leadflow');
    else if (seen.has(lower)) problems.at(at, 'repeats a header (names ignore case)');
    seen.add(lower);
    if (typeof headerValue !== 'string') problems.at(at, 'must be a string');
    else if (
      withReferences(headerValue, at, values, problems, (resolved) =>
        LINE_BREAK.test(resolved)
          ? refused(at, 'must not contain line breaks', problems)
          : isHeaderValue(resolved) || refused(at, 'must hold only printable Latin-1 characters', problems),
      )
    ) {
      entries.push([name, headerValue]);
    }
  }
  return problems.found.length > start ? undefined : Object.fromEntries(entries);
}

function parseAuth(value: unknown, path: string, values: BuyerValues, problems: Problems): HttpExchange['auth'] {
  const valid = (
    text: unknown,
    at: string,
    test: (resolved: string) => boolean,
    message: string,
  ): string | undefined =>
    typeof text !== 'string'
      ? problems.at(at, message)
      : withReferences(text, at, values, problems, (resolved) => test(resolved) || refused(at, message, problems));
  const fields = readObject(
    value,
    path,
    ['bearer', 'basic'],
    problems,
    '{bearer: TOKEN} or {basic: {username, password}}',
  );
  if (!fields) return undefined;
  const kind = oneOf(fields, ['bearer', 'basic'], path, problems);
  if (kind === 'bearer') {
    const token = valid(
      fields.bearer,
      keyPath(path, 'bearer'),
      (resolved) => TOKEN_TEXT.test(resolved),
      'must be a token of printable characters without spaces',
    );
    return token === undefined ? undefined : { type: 'bearer', token };
  }
  if (kind === undefined) return undefined;
  const at = keyPath(path, 'basic');
  const basic = readObject(fields.basic, at, ['username', 'password'], problems, '{username, password}');
  if (!basic) return undefined;
  // RFC 7617: the user name cannot hold a colon; an empty password is common for API keys sent as user names.
  const username = valid(
    basic.username,
    keyPath(at, 'username'),
    (resolved) => TOKEN_TEXT.test(resolved) && !resolved.includes(':'),
    'must be printable characters without spaces or ":"',
  );
  const password = valid(
    basic.password,
    keyPath(at, 'password'),
    (resolved) => !LINE_BREAK.test(resolved),
    'must be a string without line breaks',
  );
  if (username === undefined || password === undefined) return undefined;
  return { type: 'basic', username, password };
}

/** GET sends the mapping as its query string; the other methods a body in `format` (json by default). */
function readFormat(
  fields: { format?: unknown },
  method: HttpExchange['method'] | undefined,
  path: string,
  problems: Problems,
): RequestFormat | undefined {
  if (method === 'GET') {
    return isAbsent(fields.format) || fields.format === 'query'
      ? 'query'
      : problems.at(path, 'must be query or left out: GET sends the mapping as the query string');
  }
  return orDefault(fields.format, 'json', (v) => readChoice(v, path, BODY_FORMATS, problems));
}

/** A template for xml and soap, whose placeholders and the mapping's keys name each other exactly. */
function readTemplate(
  value: unknown,
  path: string,
  format: RequestFormat,
  mapping: unknown,
  mappingPath: string,
  problems: Problems,
): string | undefined {
  if (format !== 'xml' && format !== 'soap') return problems.at(path, 'is used only with format xml or soap');
  const template = readText(value, path, problems);
  if (template === undefined) return undefined;
  const problem = templateProblem(template, format === 'soap');
  if (problem !== undefined) return problems.at(path, problem);
  const used = new Set(placeholderNames(template));
  const keys = isPlainObject(mapping) ? Object.keys(mapping) : [];
  for (const name of used) {
    if (!PLACEHOLDER_NAME.test(name))
      problems.at(path, 'has a {{placeholder}} that is not a name of letters, digits, "_", "." or "-"');
    else if (!keys.includes(name)) problems.at(path, `has {{${name}}}, which is not a key of the mapping`);
  }
  for (const key of keys) if (!used.has(key)) problems.at(keyPath(mappingPath, key), 'is not used by the template');
  return template;
}

/** One HTTP call of a buyer (its ping or its post). */
export function parseExchange(
  value: unknown,
  path: string,
  context: ExchangeContext,
  problems: Problems,
): HttpExchange | undefined {
  const fields = readObject(value, path, KEYS, problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const at = (key: string): string => keyPath(path, key);
  const url = required(fields.url, at('url'), problems, (v) => readUrl(v, at('url'), context, problems));
  const testUrl = !isAbsent(fields.testUrl)
    ? readUrl(fields.testUrl, at('testUrl'), context, problems)
    : context.testUrlRequired
      ? problems.at(at('testUrl'), 'is required when testBehaviour is test_url')
      : undefined;
  const method = orDefault(fields.method, 'POST', (v) =>
    readChoice(typeof v === 'string' ? v.toUpperCase() : v, at('method'), METHODS, problems),
  );
  const format = readFormat(fields, method, at('format'), problems);
  const template =
    isAbsent(fields.template) || format === undefined
      ? undefined
      : readTemplate(fields.template, at('template'), format, fields.mapping, at('mapping'), problems);
  let soapAction: string | undefined;
  if (!isAbsent(fields.soapAction)) {
    if (format !== 'soap') problems.at(at('soapAction'), 'is used only with format soap');
    else if (typeof fields.soapAction !== 'string' || LINE_BREAK.test(fields.soapAction))
      problems.at(at('soapAction'), 'must be a string without line breaks');
    else soapAction = fields.soapAction;
  }
  const headers = orDefault(fields.headers, {}, (v) => parseHeaders(v, at('headers'), context.values, problems));
  const auth = isAbsent(fields.auth) ? undefined : parseAuth(fields.auth, at('auth'), context.values, problems);
  if (auth && headers && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    problems.at(at('auth'), 'conflicts with the Authorization header');
  }
  if (soapAction !== undefined && headers && Object.keys(headers).some((name) => name.toLowerCase() === 'soapaction')) {
    problems.at(at('soapAction'), 'conflicts with the SOAPAction header');
  }
  const mapping = required(fields.mapping, at('mapping'), problems, (v) =>
    parseMapping(
      v,
      at('mapping'),
      { call: context.call, format, template: !isAbsent(fields.template), values: context.values },
      problems,
    ),
  );
  const response = required(fields.response, at('response'), problems, (v) =>
    parseResponse(
      v,
      at('response'),
      context.call === 'ping' ? 'ping' : context.call === 'postAfterPing' ? 'postAfterPing' : 'post',
      context.carriesBid,
      problems,
    ),
  );
  if (
    problems.found.length > start ||
    url === undefined ||
    method === undefined ||
    format === undefined ||
    headers === undefined ||
    mapping === undefined ||
    response === undefined
  ) {
    return undefined;
  }
  return {
    url,
    testUrl,
    method,
    format,
    ...(template === undefined ? {} : { template }),
    ...(soapAction === undefined ? {} : { soapAction }),
    headers,
    auth,
    mapping,
    response,
  };
}
