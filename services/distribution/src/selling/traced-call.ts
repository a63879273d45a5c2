import { type Attributes, SpanKind, type Tracer } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS } from '@opentelemetry/semantic-conventions';
import { callTimeoutMs, type HttpExchange, type Integration } from '../buyers/definition/buyer-definition.js';
import type { BuyerCallOptions, BuyerCallResult, callBuyer } from '../buyers/integration/buyer-call.js';
import { hostOfUrl, leadForCall } from './call-inputs.js';
import type { CallKind } from './call-timing.js';
import type { Candidate } from './candidate.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { SaleRequest } from './lead-seller.js';

const SPAN_NAMES: Record<CallKind, string> = { ping: 'leadflow.buyer.ping', post: 'leadflow.buyer.post' };

export type TracedCallResult = BuyerCallResult & { startedAt: number };

export interface CallOptions {
  /** The post's attempt id, the idempotency reference the buyer may be sent. */
  attemptId?: string;
  /**
   * The call is not cut at the sale's deadline (only not sent after it): it runs the buyer's own
   * timeout, unless this signal ends it first. For a post whose late answer can still settle the lead.
   */
  outlivesDeadline?: AbortSignal;
}

export interface BuyerCallerDependencies {
  tracer: Tracer;
  breakers: CircuitBreakers;
  /** The call to a buyer's API; replaced in tests of the engine alone. */
  call: typeof callBuyer;
}

/** A sale's calls to buyers: each in a CLIENT span, each live answer counted toward the buyer's circuit. */
export class BuyerCaller {
  constructor(private readonly deps: BuyerCallerDependencies) {}

  async call(
    kind: CallKind,
    candidate: Candidate,
    exchange: HttpExchange,
    request: SaleRequest,
    options: CallOptions = {},
  ): Promise<TracedCallResult> {
    const { buyer } = candidate;
    const lead = leadForCall(
      request,
      candidate.facts,
      kind === 'ping' ? 'ping' : { pingReference: candidate.pingReference, attemptId: options.attemptId },
    );
    const startedAt = Date.now();
    const host = destinationHost(exchange, buyer.definition.integration, request.lead.test);
    const attributes: Attributes = { 'leadflow.buyer_id': buyer.id, 'leadflow.test': request.lead.test };
    if (host) attributes[ATTR_SERVER_ADDRESS] = host;
    const callOptions: BuyerCallOptions = { test: request.lead.test, kind };
    if (options.outlivesDeadline) {
      callOptions.sendBy = request.deadline;
      callOptions.signal = options.outlivesDeadline;
    } else {
      callOptions.deadlineMs = request.deadline;
    }
    // Not an active span: nothing under a buyer call makes spans of its own, and making it active
    // would copy the context, a closure and an async frame more for each of a lead's hundred calls.
    const span = this.deps.tracer.startSpan(SPAN_NAMES[kind], { kind: SpanKind.CLIENT, attributes });
    const result = await this.deps.call(exchange, buyer.definition.integration, lead, callOptions);
    span.setAttribute('leadflow.buyer.outcome', result.outcome);
    if (result.httpStatus !== null) span.setAttribute('http.response.status_code', result.httpStatus);
    span.end();
    const traced = { ...result, startedAt };
    // A call that outlives the deadline is cut short only by its signal (no room to linger, a shutdown).
    const cutShort = options.outlivesDeadline
      ? options.outlivesDeadline.aborted
      : request.deadline - startedAt < callTimeoutMs(buyer.definition.integration, kind);
    this.recordHealth(candidate, request, traced, cutShort);
    return traced;
  }

  /**
   * Live calls only: a test endpoint's troubles say nothing of the buyer's live API. Nor does a call
   * we cut short of the buyer's own timeout (or the deadline left no time to send): a slow buyer
   * posted late in a sale is not failing, and must not be paused for every other lead.
   */
  private recordHealth(candidate: Candidate, request: SaleRequest, result: TracedCallResult, cutShort: boolean): void {
    if (request.lead.test) return;
    if (cutShort && (result.outcome === 'timeout' || result.reply.error === 'deadline_passed')) return;
    if (result.outcome === 'error' || result.outcome === 'timeout')
      this.deps.breakers.recordFailure(candidate.buyer.id, result.startedAt);
    else this.deps.breakers.recordSuccess(candidate.buyer.id);
  }
}

/**
 * The host a call goes to, for its span: never the whole URL, whose path or query may carry the
 * buyer's API key. Undefined when no call goes out (a test lead answered by configuration).
 */
function destinationHost(exchange: HttpExchange, integration: Integration, test: boolean): string | undefined {
  if (test && integration.testBehaviour !== 'test_url') return undefined;
  const url = test ? exchange.testUrl : exchange.url;
  return url === undefined ? undefined : hostOfUrl(url);
}
