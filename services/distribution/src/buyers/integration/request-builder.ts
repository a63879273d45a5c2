import type { FieldSource, HttpExchange, RequestFormat } from '../definition/buyer-definition.js';
import { type BuyerValues, serviceValues } from '../definition/buyer-values.js';
import { resolvedExchange } from './exchange-references.js';
import { applyTransforms, type FieldValue } from './field-transforms.js';
import { type BodyEntry, conflictingJsonKey, formBody, jsonBody, queryUrl } from './request-body.js';
import { RequestBuildError } from './request-build-error.js';
import { elementPathProblems, elementsXml, filledTemplate, xmlDocument } from './xml-body.js';

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
  /** undefined for a GET, whose mapping is in the URL's query string. */
  body: string | undefined;
}

const CONTENT_TYPES: Record<Exclude<RequestFormat, 'query'>, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  xml: 'application/xml; charset=utf-8',
  // SOAP 1.1 requires text/xml.
  soap: 'text/xml; charset=utf-8',
};

/**
 * The HTTP request for one exchange (ping or post) of one lead, its ${env:...} and ${secret:...}
 * references resolved in `values` (the service's own by default). Fields absent from the lead are left
 * out of the body (an XML template gets ""). A test lead goes to the exchange's testUrl and never to
 * the live URL: without a testUrl this throws RequestBuildError, as it does for mapping keys that
 * conflict, references that no longer resolve, and values XML cannot carry.
 */
export function buildRequest(
  written: HttpExchange,
  lead: LeadForBuyer,
  options: { test: boolean; values?: BuyerValues },
): BuyerRequest {
  const exchange = resolvedExchange(written, options.values ?? serviceValues());
  const url = destination(exchange, options.test);
  if (exchange.format === 'query')
    return {
      url: queryUrl(url, entries(exchange, lead)),
      method: exchange.method,
      headers: headersOf(exchange),
      body: undefined,
    };
  return { url, method: exchange.method, headers: headersOf(exchange), body: sharedBody(exchange, lead) };
}

/** An exchange's headers, built once for an exchange without references (one with them is resolved anew). */
const builtHeaders = new WeakMap<HttpExchange, Readonly<Record<string, string>>>();

function headersOf(exchange: HttpExchange): Record<string, string> {
  let built = builtHeaders.get(exchange);
  if (!built) {
    built = headers(exchange);
    builtHeaders.set(exchange, built);
  }
  return built;
}

/**
 * The bodies built from one lead object (a ping's lead is one object for all the buyers of a zone it is
 * pinged to: ping-lead.ts), by what shapes a body: the buyers of a tree mostly map a lead alike, and
 * each such body is built once per lead rather than once per buyer.
 */
const bodiesOf = new WeakMap<LeadForBuyer, Map<string, string>>();
/** Each exchange's body shape, worked out once. */
const shapes = new WeakMap<HttpExchange, string>();

function sharedBody(exchange: HttpExchange, lead: LeadForBuyer): string {
  let bodies = bodiesOf.get(lead);
  if (!bodies) {
    bodies = new Map();
    bodiesOf.set(lead, bodies);
  }
  const shape = bodyShape(exchange);
  let built = bodies.get(shape);
  if (built === undefined) {
    built = body(exchange, lead);
    bodies.set(shape, built);
  }
  return built;
}

/** What a body is built from besides the lead: the format, the XML template and the mapping. */
function bodyShape(exchange: HttpExchange): string {
  let shape = shapes.get(exchange);
  if (shape === undefined) {
    shape = JSON.stringify([exchange.format, exchange.template ?? null, exchange.mapping]);
    shapes.set(exchange, shape);
  }
  return shape;
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
  if (exchange.format !== 'query') result['content-type'] ??= CONTENT_TYPES[exchange.format];
  // SOAP 1.1: the header's value is a quoted URI, "" when the service wants none.
  if (exchange.soapAction !== undefined) result.soapaction = JSON.stringify(exchange.soapAction);
  const { auth } = exchange;
  if (auth?.type === 'bearer') result.authorization = `Bearer ${auth.token}`;
  if (auth?.type === 'basic') {
    result.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`;
  }
  return result;
}

/** Each mapping's first conflicting JSON key (null: none), found once: a mapping never changes. */
const jsonConflicts = new WeakMap<HttpExchange['mapping'], string | null>();

function jsonConflictOf(mapping: HttpExchange['mapping']): string | undefined {
  let conflict = jsonConflicts.get(mapping);
  if (conflict === undefined) {
    conflict = conflictingJsonKey(Object.keys(mapping)) ?? null;
    jsonConflicts.set(mapping, conflict);
  }
  return conflict ?? undefined;
}

function body(exchange: HttpExchange, lead: LeadForBuyer): string {
  if (exchange.format === 'form') return formBody(entries(exchange, lead));
  if (exchange.format === 'xml' || exchange.format === 'soap') return xmlBody(exchange, lead);
  // Checked over every key, not only the present ones, so a bad mapping fails for every lead alike.
  const conflict = jsonConflictOf(exchange.mapping);
  if (conflict !== undefined) {
    throw new RequestBuildError('conflicting_keys', `mapping key "${conflict}" conflicts with another key`);
  }
  return jsonBody(entries(exchange, lead));
}

function xmlBody(exchange: HttpExchange, lead: LeadForBuyer): string {
  const soap = exchange.format === 'soap';
  if (exchange.template !== undefined)
    return xmlDocument(filledTemplate(exchange.template, entries(exchange, lead)), soap);
  const keys = Object.keys(exchange.mapping);
  // Checked over every key, as for JSON: the parser refuses such a mapping, so only a stored one can.
  if (elementPathProblems(keys).length > 0)
    throw new RequestBuildError('invalid_xml_mapping', 'mapping keys are not element paths under one root');
  return xmlDocument(elementsXml(keys[0].split('/')[0], entries(exchange, lead)), soap);
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
