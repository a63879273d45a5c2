import type { FieldSource, HttpExchange } from '../definition/buyer-definition.js';
import type { BuyerValues } from '../definition/buyer-values.js';
import { hasReferences, resolveReferences } from '../definition/value-references.js';
import { RequestBuildError } from './request-build-error.js';

const LINE_BREAK = /[\r\n\0]/;

/**
 * A value as it is sent. Apply checked every reference; one can still fail here when the service's
 * environment or secrets file changed since. Line breaks are refused again: a value with one would
 * split a header.
 */
function resolved(text: string, values: BuyerValues, inHeader: boolean): string {
  const resolution = resolveReferences(text, values);
  if ('problem' in resolution) throw new RequestBuildError('unresolved_reference', resolution.problem);
  if (inHeader && LINE_BREAK.test(resolution.value))
    throw new RequestBuildError('unresolved_reference', 'a reference resolves to a value with a line break');
  return resolution.value;
}

function resolvedSource(source: FieldSource, values: BuyerValues): FieldSource {
  return 'value' in source && typeof source.value === 'string' && hasReferences(source.value)
    ? { value: resolved(source.value, values, false) }
    : source;
}

/** Whether each exchange holds references, found once: an exchange never changes. */
const withReferences = new WeakMap<HttpExchange, boolean>();

function holdsReferences(exchange: HttpExchange): boolean {
  let holds = withReferences.get(exchange);
  if (holds === undefined) {
    const texts = [exchange.url, exchange.testUrl ?? '', ...Object.values(exchange.headers)];
    if (exchange.auth?.type === 'bearer') texts.push(exchange.auth.token);
    if (exchange.auth?.type === 'basic') texts.push(exchange.auth.username, exchange.auth.password);
    const constants = Object.values(exchange.mapping).some(
      (source) => 'value' in source && typeof source.value === 'string' && hasReferences(source.value),
    );
    holds = constants || texts.some(hasReferences);
    withReferences.set(exchange, holds);
  }
  return holds;
}

/**
 * The exchange with its references replaced by their values (anew at each call: the environment or the
 * secrets file may change); the exchange itself when it has none.
 */
export function resolvedExchange(exchange: HttpExchange, values: BuyerValues): HttpExchange {
  if (!holdsReferences(exchange)) return exchange;
  const { auth } = exchange;
  return {
    ...exchange,
    url: resolved(exchange.url, values, true),
    testUrl: exchange.testUrl === undefined ? undefined : resolved(exchange.testUrl, values, true),
    headers: Object.fromEntries(
      Object.entries(exchange.headers).map(([name, value]) => [name, resolved(value, values, true)]),
    ),
    auth:
      auth?.type === 'bearer'
        ? { type: 'bearer', token: resolved(auth.token, values, true) }
        : auth?.type === 'basic'
          ? {
              type: 'basic',
              username: resolved(auth.username, values, true),
              password: resolved(auth.password, values, true),
            }
          : undefined,
    mapping: Object.fromEntries(
      Object.entries(exchange.mapping).map(([key, source]) => [key, resolvedSource(source, values)]),
    ),
  };
}
