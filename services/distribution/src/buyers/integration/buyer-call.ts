import { callTimeoutMs, type HttpExchange, type Integration } from '../definition/buyer-definition.js';
import type { BuyerValues } from '../definition/buyer-values.js';
import { withoutPersonalValues } from './echoed-values.js';
import { pingLead } from './ping-lead.js';
import { type BuyerReply, parseReply } from './reply-parser.js';
import { RequestBuildError } from './request-build-error.js';
import { type BuyerRequest, buildRequest, type LeadForBuyer } from './request-builder.js';
import { sendToBuyer } from './transport.js';

export type { BuyerReply } from './reply-parser.js';
export type { LeadForBuyer } from './request-builder.js';

export interface BuyerCallOptions {
  test: boolean;
  /**
   * A ping never carries the fields in PING_WITHHELD_FIELDS, whatever its mapping says; a status lookup
   * carries the lead's and the post's ids alone.
   */
  kind: 'ping' | 'post' | 'statusLookup';
  /** Absolute time (Date.now() clock) the call must end by; the call's timeout is cut to fit it. */
  deadlineMs?: number;
  /**
   * Absolute time after which the call is not sent ('deadline_passed'); unlike deadlineMs it does not
   * cut a call once sent, which then runs the buyer's own timeout.
   */
  sendBy?: number;
  /** Aborting ends the call at once, reported as a timeout. */
  signal?: AbortSignal;
  /** Where ${env:...} and ${secret:...} are looked up; the service's own environment and secrets file by default. */
  values?: BuyerValues;
}

export interface BuyerCallResult {
  reply: BuyerReply;
  /** null when no HTTP status was received. */
  httpStatus: number | null;
  latencyMs: number;
  /**
   * The reply's outcome, or timeout: no whole reply in time. For a post that means the outcome is
   * unknown (the buyer may have taken the lead); it is never a sale.
   */
  outcome: BuyerReply['outcome'] | 'timeout';
}

/**
 * One ping or post to a buyer, start to end. Never throws for anything the buyer or its configuration
 * does: every failure is an error outcome with a code in reply.error — the reply parser's, the
 * transport's failures, 'timeout', 'deadline_passed' (no time was left, nothing was sent) and the
 * request builder's ('no_test_url', 'conflicting_keys', 'unresolved_reference', 'invalid_xml_character',
 * 'invalid_xml_mapping').
 *
 * A test lead gets the buyer's test behaviour: accept or reject without any call, or the exchange sent
 * to its testUrl; with no testUrl that is an error, never a call to the live URL.
 */
export async function callBuyer(
  exchange: HttpExchange,
  integration: Integration,
  lead: LeadForBuyer,
  options: BuyerCallOptions,
): Promise<BuyerCallResult> {
  if (options.test && integration.testBehaviour === 'accept')
    return withoutCall({ outcome: 'accepted', reason: 'test lead' });
  if (options.test && integration.testBehaviour === 'reject')
    return withoutCall({ outcome: 'rejected', reason: 'test lead' });
  const sent = leadSent(lead, options.kind);
  let request: BuyerRequest;
  try {
    request = buildRequest(exchange, sent, { test: options.test, values: options.values });
  } catch (error) {
    if (error instanceof RequestBuildError) return withoutCall({ outcome: 'error', error: error.code });
    throw error;
  }
  const timeoutMs = Math.min(
    callTimeoutMs(integration, options.kind === 'ping' ? 'ping' : 'post'),
    (options.deadlineMs ?? Infinity) - Date.now(),
  );
  if (timeoutMs <= 0 || (options.sendBy !== undefined && Date.now() >= options.sendBy))
    return withoutCall({ outcome: 'error', error: 'deadline_passed' });

  const result = await sendToBuyer(request, {
    timeoutMs,
    local: integration.local,
    signal: options.signal,
    resendOnClosedConnection: options.kind !== 'post',
  });
  switch (result.kind) {
    case 'reply': {
      const reply = withoutEchoes(
        parseReply(exchange.response, result.status, result.contentType, result.body, { local: integration.local }),
        sent,
      );
      return { reply, httpStatus: result.status, latencyMs: result.latencyMs, outcome: reply.outcome };
    }
    case 'timeout':
      return {
        reply: { outcome: 'error', error: 'timeout' },
        httpStatus: null,
        latencyMs: result.latencyMs,
        outcome: 'timeout',
      };
    case 'failed':
      return {
        reply: { outcome: 'error', error: result.error },
        httpStatus: null,
        latencyMs: result.latencyMs,
        outcome: 'error',
      };
  }
}

function leadSent(lead: LeadForBuyer, kind: BuyerCallOptions['kind']): LeadForBuyer {
  if (kind === 'ping') return pingLead(lead);
  if (kind === 'statusLookup') return { leadId: lead.leadId, attemptId: lead.attemptId, fields: {}, derived: {} };
  return lead;
}

/** The reply with the personal values the buyer was sent taken out of its reason and reference. */
function withoutEchoes(reply: BuyerReply, sent: LeadForBuyer): BuyerReply {
  const cleaned = { ...reply };
  if (reply.reason !== undefined) cleaned.reason = withoutPersonalValues(reply.reason, sent.fields);
  if (reply.reference !== undefined) cleaned.reference = withoutPersonalValues(reply.reference, sent.fields);
  return cleaned;
}

function withoutCall(reply: BuyerReply): BuyerCallResult {
  return { reply, httpStatus: null, latencyMs: 0, outcome: reply.outcome };
}
