import { formatCents } from '@leadflow/core/amounts';
import type {
  BuyerDefinition,
  Caps,
  HttpExchange,
  Integration,
  Payout,
  PayoutPolicy,
  Pricing,
  ResponseParser,
} from './buyer-definition.js';

import { durationText } from './read-values.js';
/**
 * A definition written back in the file form that `buyer apply` reads: parsing the result gives the
 * definition again. This is how a stored definition is checked with every rule of apply when it is
 * loaded (see stored-definition.ts).
 */
export function buyerDocument(definition: BuyerDefinition): Record<string, unknown> {
  return withoutUndefined({
    name: definition.name,
    active: definition.active,
    tier: definition.tier,
    priority: definition.priority,
    weight: definition.weight,
    integration: integrationDocument(definition.integration),
    filters: definition.filters,
    schedule: definition.schedule && withoutUndefined({ ...definition.schedule }),
    caps: capsDocument(definition.caps),
    duplicates: definition.duplicates,
    pricing: pricingDocument(definition.pricing),
    payout: payoutPolicyDocument(definition.payout),
    returns: definition.returns && withoutUndefined({ ...definition.returns }),
  });
}

function dollars(cents: number | undefined): string | undefined {
  return cents === undefined ? undefined : formatCents(cents);
}

function capsDocument(caps: Caps): Record<string, unknown> {
  return withoutUndefined({
    leadsPerHour: caps.leadsPerHour,
    leadsPerDay: caps.leadsPerDay,
    leadsPerMonth: caps.leadsPerMonth,
    spendPerDay: dollars(caps.spendPerDayCents),
  });
}

function pricingDocument(pricing: Pricing): Record<string, unknown> {
  switch (pricing.type) {
    case 'fixed':
      return { type: 'fixed', price: dollars(pricing.priceCents) };
    case 'rules':
      return {
        type: 'rules',
        default: dollars(pricing.defaultCents),
        rules: pricing.rules.map((rule) => ({ when: rule.when, price: dollars(rule.priceCents) })),
      };
    case 'bid':
      return { type: 'bid' };
  }
}

function payoutDocument(payout: Payout): Record<string, unknown> {
  if ('fixedCents' in payout) return { fixed: dollars(payout.fixedCents) };
  const bps = String(payout.revenueShareBps).padStart(5, '0');
  return { revenueShare: `${bps.slice(0, -4)}.${bps.slice(-4)}` };
}

function payoutPolicyDocument(payout: PayoutPolicy): Record<string, unknown> {
  const publishers = Object.entries(payout.publishers).map(([publisher, terms]) => [publisher, payoutDocument(terms)]);
  return {
    ...(payout.default ? payoutDocument(payout.default) : {}),
    ...(publishers.length > 0 ? { publishers: Object.fromEntries(publishers) } : {}),
  };
}

function integrationDocument(integration: Integration): Record<string, unknown> {
  return withoutUndefined({
    mode: integration.mode,
    timeoutMs: integration.timeoutMs,
    pingTimeoutMs: integration.pingTimeoutMs,
    postTimeoutMs: integration.postTimeoutMs,
    local: integration.local,
    testBehaviour: integration.testBehaviour,
    onTimeout: integration.onTimeout,
    ping: integration.ping && exchangeDocument(integration.ping),
    post: exchangeDocument(integration.post),
    statusLookup: integration.statusLookup && exchangeDocument(integration.statusLookup),
    settleAfter: integration.settleAfterMs === undefined ? undefined : durationText(integration.settleAfterMs),
  });
}

function exchangeDocument(exchange: HttpExchange): Record<string, unknown> {
  const { auth } = exchange;
  return withoutUndefined({
    url: exchange.url,
    testUrl: exchange.testUrl,
    method: exchange.method,
    format: exchange.format,
    template: exchange.template,
    soapAction: exchange.soapAction,
    headers: exchange.headers,
    auth:
      auth &&
      (auth.type === 'bearer'
        ? { bearer: auth.token }
        : { basic: { username: auth.username, password: auth.password } }),
    mapping: exchange.mapping,
    response: responseDocument(exchange.response),
  });
}

function responseDocument(response: ResponseParser): Record<string, unknown> {
  return withoutUndefined({ ...response });
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
