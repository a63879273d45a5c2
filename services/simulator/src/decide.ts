import type { Random } from '@leadflow/core/seeded-random';
import { leaves } from './body-fields.js';
import type { DirectPostEndpoint, Endpoint, PingEndpoint, PostEndpoint } from './config.js';
import { sampleCents } from './distributions.js';
import type { EndpointState } from './endpoint-state.js';
import { dollars, type Verdict } from './replies.js';
import type { RequestFields } from './request-body.js';

export const REASONS = {
  declined: 'declined',
  duplicate: 'duplicate',
  noMatchingPing: 'no matching ping',
  noBid: 'no bid',
} as const;

export interface DecisionContext {
  state: EndpointState;
  /** The state of a post endpoint's ping endpoint. */
  pingState: EndpointState | undefined;
  nextRef(prefix: 'SIM' | 'PING'): string;
  now: number;
  /** The request's draws: the endpoint's stream, or the lead's own (lead-draws.ts). */
  random: Random;
}

/** The business answer to a request that got past auth and faults, with its effects on the endpoint's memory. */
export function decide(endpoint: Endpoint, body: RequestFields, context: DecisionContext): Verdict {
  switch (endpoint.kind) {
    case 'direct_post':
      return decideDirectPost(endpoint, body, context);
    case 'ping':
      return decidePing(endpoint, body, context);
    case 'post':
      return decidePost(endpoint, body, context);
  }
}

function decideDirectPost(
  endpoint: DirectPostEndpoint,
  body: RequestFields,
  { state, nextRef, random }: DecisionContext,
): Verdict {
  if (endpoint.duplicateCheck && state.applicants.check(body))
    return { outcome: 'rejected', reason: REASONS.duplicate };
  if (random() >= endpoint.acceptRate) return { outcome: 'rejected', reason: REASONS.declined };
  return accepted(endpoint, body, sampleCents(endpoint.price, random), nextRef('SIM'));
}

function decidePing(
  endpoint: PingEndpoint,
  body: RequestFields,
  { state, nextRef, now, random }: DecisionContext,
): Verdict {
  if (random() >= endpoint.acceptRate) return { outcome: 'no_bid', reason: REASONS.noBid };
  const bidCents = sampleCents(endpoint.bid, random);
  const pingRef = nextRef('PING');
  state.bids.remember(
    { bidCents, pingRef, leadId: textField(body, 'leadId'), expiresAt: now + endpoint.pingTtlMs },
    now,
  );
  return { outcome: 'bid', bidCents, pingRef };
}

function decidePost(
  endpoint: PostEndpoint,
  body: RequestFields,
  { state, pingState, nextRef, now, random }: DecisionContext,
): Verdict {
  // A lender's post names its bid in a field of its own choosing (pingRef, ping_id, a SOAP element...).
  const values = leaves(body).flatMap(({ value }) =>
    typeof value === 'string' || typeof value === 'number' ? [String(value)] : [],
  );
  const bid = pingState?.bids.take({ values, leadId: textField(body, 'leadId') }, now);
  if (!bid) return { outcome: 'rejected', reason: REASONS.noMatchingPing };
  if (endpoint.duplicateCheck && state.applicants.check(body))
    return { outcome: 'rejected', reason: REASONS.duplicate };
  if (random() >= endpoint.acceptRate) return { outcome: 'rejected', reason: REASONS.declined };
  return accepted(endpoint, body, bid.bidCents, nextRef('SIM'));
}

function accepted(
  endpoint: DirectPostEndpoint | PostEndpoint,
  body: RequestFields,
  priceCents: number,
  leadRef: string,
): Verdict {
  const values: Record<string, string> = {
    leadRef,
    leadId: textField(body, 'leadId') ?? '',
    price: dollars(priceCents),
  };
  const redirect = endpoint.redirectUrl?.replace(/\{(leadRef|leadId|price)\}/g, (_, name: string) =>
    encodeURIComponent(values[name]),
  );
  return { outcome: 'accepted', priceCents, leadRef, redirect };
}

function textField(body: RequestFields, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** What a faulty reply pretends to be: a success of the endpoint's kind, decided by nothing. */
export function plausibleSuccess(endpoint: Endpoint): Verdict {
  return endpoint.kind === 'ping'
    ? { outcome: 'bid', bidCents: 1000, pingRef: 'PING-000000' }
    : { outcome: 'accepted', priceCents: 1000, leadRef: 'SIM-000000', redirect: endpoint.redirectUrl };
}
