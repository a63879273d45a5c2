import type { FieldSource, HttpExchange } from '../definition/buyer-definition.js';
import { applyTransforms, type FieldValue } from './field-transforms.js';
import { conflictingJsonKey, formBody, jsonBody, type BodyEntry } from './request-body.js';
import { RequestBuildError } from './request-build-error.js';

/** What a buyer request is built from. */
export interface LeadForBuyer {
  leadId: string;
  /** Normalized lead fields by JSON name; '' when absent. */
  fields: Record<string, string>;
  /** Derived values by name (age, loanAmount and incomeNetMonthly in dollars, testMode, ...). */
  derived: Record<string, string | number | boolean | undefined>;
  /** For the post of a ping_post buyer: the reference its ping answer named. */
  pingReference?: string;
  /** For a post and a status lookup: the post's attempt id, which the buyer may dedupe on. */
  attemptId?: string;
}

export interface BuyerRequest {
  url: string;
  method: string;
  /** Names in lower case. */
  headers: Record<string, string>;
  body: string;
}

const CONTENT_TYPES: Record<HttpExchange['format'], string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

/**
 * The HTTP request for one exchange (ping or post) of one lead. Fields absent from the lead are left
 * out of the body. A test lead goes to the exchange's testUrl and never to the live URL: without a
 * testUrl this throws RequestBuildError, as it does for mapping keys that conflict in JSON.
 */
export function buildRequest(exchange: HttpExchange, lead: LeadForBuyer, options: { test: boolean }): BuyerRequest {
  return {
    url: destination(exchange, options.test),
    method: exchange.method,
    headers: headers(exchange),
    body: body(exchange, lead),
  };
}

function destination(exchange: HttpExchange, test: boolean): string {
  if (!test) return exchange.url;
  if (exchange.testUrl === undefined) throw new RequestBuildError('no_test_url', 'a test lead needs a testUrl');
  return exchange.testUrl;
}

function headers(exchange: HttpExchange): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.headers)) result[name.toLowerCase()] = value;
  // A content type the operator set (a vendor type, a charset) is kept; auth always wins over a header.
  result['content-type'] ??= CONTENT_TYPES[exchange.format];
  const { auth } = exchange;
  if (auth?.type === 'bearer') result.authorization = `Bearer ${auth.token}`;
  if (auth?.type === 'basic') {
    result.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`;
  }
  return result;
}

function body(exchange: HttpExchange, lead: LeadForBuyer): string {
  if (exchange.format === 'form') return formBody(entries(exchange, lead));
  // Checked over every key, not only the present ones, so a bad mapping fails for every lead alike.
  const conflict = conflictingJsonKey(Object.keys(exchange.mapping));
  if (conflict !== undefined) {
    throw new RequestBuildError('conflicting_keys', `mapping key "${conflict}" conflicts with another key`);
  }
  return jsonBody(entries(exchange, lead));
}

function entries(exchange: HttpExchange, lead: LeadForBuyer): BodyEntry[] {
  const result: BodyEntry[] = [];
  for (const [key, source] of Object.entries(exchange.mapping)) {
    const value = sourceValue(source, lead);
    if (value !== undefined) result.push([key, value]);
  }
  return result;
}

function sourceValue(source: FieldSource, lead: LeadForBuyer): FieldValue | undefined {
  if ('value' in source) return source.value;
  const raw = readField(source.field, lead);
  return raw === undefined ? undefined : applyTransforms(raw, source.transform);
}

/**
 * leadId, pingReference and attemptId, else the derived value of that name, else the lead field: names that are
 * both (loanAmount, incomeNetMonthly, testMode) read the typed derived value.
 */
function readField(name: string, lead: LeadForBuyer): FieldValue | undefined {
  if (name === 'leadId') return lead.leadId;
  if (name === 'pingReference') return isPresent(lead.pingReference) ? lead.pingReference : undefined;
  if (name === 'attemptId') return isPresent(lead.attemptId) ? lead.attemptId : undefined;
  const derived = Object.hasOwn(lead.derived, name) ? lead.derived[name] : undefined;
  if (isPresent(derived)) return derived;
  const field = Object.hasOwn(lead.fields, name) ? lead.fields[name] : undefined;
  return isPresent(field) ? field : undefined;
}

function isPresent(value: unknown): value is FieldValue {
  if (typeof value === 'string') return value !== '';
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'boolean';
}
