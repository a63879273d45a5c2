import type { HttpExchange } from './buyer-definition.js';
import { parseMapping, type CallKind } from './parse-mapping.js';
import { parseResponse } from './parse-response.js';
import { keyPath, type Problems } from './problems.js';
import { isAbsent, isPlainObject, oneOf, orDefault, readChoice, readObject, readText, required } from './read-values.js';

const KEYS = ['url', 'testUrl', 'method', 'format', 'headers', 'auth', 'mapping', 'response'] as const;
const METHODS = ['POST', 'PUT'] as const;
const FORMATS = ['json', 'form'] as const;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
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
}

function readUrl(value: unknown, path: string, local: boolean, problems: Problems): string | undefined {
  const text = readText(value, path, problems);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return problems.at(path, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) {
    return problems.at(path, local ? 'must be an http:// or https:// URL' : 'must be an https:// URL; only a buyer marked local: true may use http://');
  }
  // Credentials in a URL end up in logs; auth keeps them apart.
  if (url.username !== '' || url.password !== '') return problems.at(path, 'must not hold a user name or password; use auth');
  return text;
}

function parseHeaders(value: unknown, path: string, problems: Problems): Record<string, string> | undefined {
  if (!isPlainObject(value)) return problems.at(path, 'must be an object of header name -> value');
  const start = problems.found.length;
  const seen = new Set<string>();
  const entries: [string, string][] = [];
  for (const [name, headerValue] of Object.entries(value)) {
    const at = keyPath(path, name);
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) problems.at(at, 'is not a valid header name');
    else if (MANAGED_HEADERS.has(lower)) problems.at(at, 'is set by leadflow');
    else if (seen.has(lower)) problems.at(at, 'repeats a header (names ignore case)');
    seen.add(lower);
    if (typeof headerValue !== 'string') problems.at(at, 'must be a string');
    else if (LINE_BREAK.test(headerValue)) problems.at(at, 'must not contain line breaks');
    else entries.push([name, headerValue]);
  }
  return problems.found.length > start ? undefined : Object.fromEntries(entries);
}

function parseAuth(value: unknown, path: string, problems: Problems): HttpExchange['auth'] {
  const fields = readObject(value, path, ['bearer', 'basic'], problems, '{bearer: TOKEN} or {basic: {username, password}}');
  if (!fields) return undefined;
  const kind = oneOf(fields, ['bearer', 'basic'], path, problems);
  if (kind === 'bearer') {
    const token = fields.bearer;
    if (typeof token !== 'string' || !TOKEN_TEXT.test(token)) return problems.at(keyPath(path, 'bearer'), 'must be a token of printable characters without spaces');
    return { type: 'bearer', token };
  }
  if (kind === undefined) return undefined;
  const at = keyPath(path, 'basic');
  const basic = readObject(fields.basic, at, ['username', 'password'], problems, '{username, password}');
  if (!basic) return undefined;
  const start = problems.found.length;
  const { username, password } = basic;
  // RFC 7617: the user name cannot hold a colon; an empty password is common for API keys sent as user names.
  if (typeof username !== 'string' || !TOKEN_TEXT.test(username) || username.includes(':')) {
    problems.at(keyPath(at, 'username'), 'must be printable characters without spaces or ":"');
  }
  if (typeof password !== 'string' || LINE_BREAK.test(password)) problems.at(keyPath(at, 'password'), 'must be a string without line breaks');
  if (typeof username !== 'string' || typeof password !== 'string' || problems.found.length > start) return undefined;
  return { type: 'basic', username, password };
}

/** One HTTP call of a buyer (its ping or its post). */
export function parseExchange(value: unknown, path: string, context: ExchangeContext, problems: Problems): HttpExchange | undefined {
  const fields = readObject(value, path, KEYS, problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const at = (key: string): string => keyPath(path, key);
  const url = required(fields.url, at('url'), problems, (v) => readUrl(v, at('url'), context.local, problems));
  const testUrl = !isAbsent(fields.testUrl)
    ? readUrl(fields.testUrl, at('testUrl'), context.local, problems)
    : context.testUrlRequired
      ? problems.at(at('testUrl'), 'is required when testBehaviour is test_url')
      : undefined;
  const method = orDefault(fields.method, 'POST', (v) => readChoice(typeof v === 'string' ? v.toUpperCase() : v, at('method'), METHODS, problems));
  const format = orDefault(fields.format, 'json', (v) => readChoice(v, at('format'), FORMATS, problems));
  const headers = orDefault(fields.headers, {}, (v) => parseHeaders(v, at('headers'), problems));
  const auth = isAbsent(fields.auth) ? undefined : parseAuth(fields.auth, at('auth'), problems);
  if (auth && headers && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    problems.at(at('auth'), 'conflicts with the Authorization header');
  }
  const mapping = required(fields.mapping, at('mapping'), problems, (v) => parseMapping(v, at('mapping'), context.call, format, problems));
  const response = required(fields.response, at('response'), problems, (v) =>
    parseResponse(v, at('response'), context.call === 'ping' ? 'ping' : 'post', problems),
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
  return { url, testUrl, method, format, headers, auth, mapping, response };
}
