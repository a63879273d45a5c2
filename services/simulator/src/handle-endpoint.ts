import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Random } from '@leadflow/core/seeded-random';
import { authChallenge, isAuthorized } from './auth.js';
import type { Endpoint } from './config.js';
import { type DecisionContext, decide, plausibleSuccess, REASONS } from './decide.js';
import { sampleMs } from './distributions.js';
import { pickFault, sendFault } from './faults.js';
import { sendError } from './http-replies.js';
import { piiFields } from './pii.js';
import { renderReply, type Verdict } from './replies.js';
import { BodyError, type RequestFields, readFields } from './request-body.js';
import type { EndpointCounters } from './stats.js';

export interface EndpointRequestContext extends Omit<DecisionContext, 'now' | 'random'> {
  endpoint: Endpoint;
  /** The lead's own draws when the market is lead-keyed and the body names the lead; else undefined. */
  leadRandom(body: RequestFields): Random | undefined;
  /** Aborted when the simulator closes, ending every wait. */
  closing: AbortSignal;
}

/**
 * One request to a lender endpoint, in the order a lender's stack would meet
 * it: method and body (or a GET's query), latency, credentials, infrastructure faults, decision.
 */
export async function handleEndpointRequest(
  context: EndpointRequestContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { endpoint, state } = context;
  const { counters } = state;
  counters.add(endpoint.kind === 'ping' ? 'pings' : 'posts');
  if (request.method !== 'POST' && request.method !== 'PUT' && request.method !== 'GET') {
    counters.add('badRequests');
    return sendError(response, 405, 'use POST, PUT or GET', { allow: 'POST, PUT, GET' });
  }
  let body: RequestFields;
  try {
    body = await readFields(request);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    counters.add('badRequests');
    return sendError(response, error.status, error.message, { connection: 'close' });
  }
  const random = context.leadRandom(body) ?? state.random;
  if (endpoint.kind === 'ping') {
    const leaked = piiFields(body);
    if (leaked.length > 0) counters.pii(leaked);
  }

  // A client that gave up meanwhile is still decided, as a lender's server would: a post that
  // timed out on the client's side may well have sold the lead (the engine's "outcome unknown").
  if (!(await wait(sampleMs(endpoint.latencyMs, random), context.closing))) return;

  if (endpoint.requireAuth && !isAuthorized(request.headers.authorization, endpoint.requireAuth)) {
    counters.add('unauthorized');
    return sendError(response, 401, 'unauthorized', { 'www-authenticate': authChallenge(endpoint.requireAuth) });
  }
  const fault = pickFault(endpoint.errors, random);
  if (fault) {
    counters.fault(fault);
    return sendFault(
      fault,
      response,
      renderReply(plausibleSuccess(endpoint), endpoint.format, endpoint.replies),
      random,
    );
  }
  const verdict = decide(endpoint, body, { ...context, now: Date.now(), random });
  count(counters, verdict);
  const reply = renderReply(verdict, endpoint.format, endpoint.replies);
  response.writeHead(200, { 'content-type': reply.contentType, 'content-length': Buffer.byteLength(reply.body) });
  response.end(reply.body);
}

/** False when the simulator closed during the wait. */
async function wait(ms: number, closing: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !closing.aborted;
  try {
    await sleep(ms, undefined, { signal: closing });
    return true;
  } catch {
    return false;
  }
}

function count(counters: EndpointCounters, verdict: Verdict): void {
  switch (verdict.outcome) {
    case 'accepted':
      counters.add('accepted');
      counters.add('acceptedCents', verdict.priceCents);
      return;
    case 'rejected':
      counters.add('rejected');
      if (verdict.reason === REASONS.duplicate) counters.add('duplicates');
      if (verdict.reason === REASONS.noMatchingPing) counters.add('unmatchedPosts');
      return;
    case 'bid':
      counters.add('bids');
      counters.add('bidCents', verdict.bidCents);
      return;
    case 'no_bid':
      counters.add('noBids');
      return;
  }
}
