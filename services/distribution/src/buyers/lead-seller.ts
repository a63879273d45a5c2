import { SpanKind, type Tracer } from '@opentelemetry/api';
import type { BuyerAttemptRow } from '../db/schema.js';
import { newId } from '../ids.js';
import { postLeadToBuyer, type BuyerReply } from './buyer-client.js';
import type { BuyerService } from './buyer.service.js';
import { selectBuyers, type BuyerOffer, type LeadTerms } from './selection.js';

export interface SaleRequest {
  leadId: string;
  terms: LeadTerms;
  /** What a buyer receives: the normalized lead, sensitive fields included. */
  payload: Record<string, unknown>;
  payoutShareBps: number;
  /** Epoch ms by which the sale must be decided. */
  deadline: number;
}

export interface SaleDecision {
  winner: { offer: BuyerOffer; redirectUrl: string } | undefined;
  /** Every buyer called, in order. */
  attempts: BuyerAttemptRow[];
  buyerWaitMs: number;
  /** Why nothing was sold, when nothing was. */
  reason: string;
}

/** Decides who buys a lead. The seam where buyer selection plugs into intake. */
export interface LeadSeller {
  sell(request: SaleRequest): Promise<SaleDecision>;
}

export const NO_ELIGIBLE_BUYER = 'No buyer is buying leads like this one right now';
export const NO_BUYER_ACCEPTED = 'No buyer accepted the lead';
export const DEADLINE_REACHED = 'No buyer accepted the lead in time';

const ACCEPTED_WITHOUT_CALL: BuyerReply = { outcome: 'accepted', httpStatus: null, reason: '', redirectUrl: '' };

/**
 * Offers the lead to eligible buyers one at a time, in priority order, until one
 * accepts or the deadline leaves no time for the next buyer's call.
 */
export class PriorityOrderSeller implements LeadSeller {
  constructor(
    private readonly buyers: BuyerService,
    private readonly tracer: Tracer,
  ) {}

  async sell(request: SaleRequest): Promise<SaleDecision> {
    const { offers } = selectBuyers(await this.buyers.listActive(), request.terms, request.payoutShareBps);
    const attempts: BuyerAttemptRow[] = [];
    let buyerWaitMs = 0;
    if (offers.length === 0) return { winner: undefined, attempts, buyerWaitMs, reason: NO_ELIGIBLE_BUYER };

    for (const offer of offers) {
      const url = request.terms.test ? offer.buyer.testPostUrl : offer.buyer.postUrl;
      const remainingMs = request.deadline - Date.now();
      if (url !== '' && remainingMs < Math.min(offer.buyer.timeoutMs, 50)) {
        return { winner: undefined, attempts, buyerWaitMs, reason: DEADLINE_REACHED };
      }
      const startedAt = Date.now();
      const started = performance.now();
      const reply = url === '' ? ACCEPTED_WITHOUT_CALL : await this.post(offer, url, request, Math.min(offer.buyer.timeoutMs, remainingMs));
      const durationMs = performance.now() - started;
      if (url !== '') buyerWaitMs += durationMs;
      attempts.push({
        id: newId('att', startedAt),
        lead_id: request.leadId,
        buyer_id: offer.buyer.id,
        started_at: startedAt,
        duration_ms: Math.round(durationMs * 100) / 100,
        outcome: reply.outcome,
        http_status: reply.httpStatus,
        reason: reply.reason || null,
      });
      if (reply.outcome === 'accepted') {
        return { winner: { offer, redirectUrl: reply.redirectUrl || offer.buyer.redirectUrl }, attempts, buyerWaitMs, reason: '' };
      }
    }
    return { winner: undefined, attempts, buyerWaitMs, reason: NO_BUYER_ACCEPTED };
  }

  private async post(offer: BuyerOffer, url: string, request: SaleRequest, timeoutMs: number): Promise<BuyerReply> {
    return this.tracer.startActiveSpan(
      'leadflow.buyer.post',
      { kind: SpanKind.CLIENT, attributes: { 'leadflow.buyer_id': offer.buyer.id, 'leadflow.test': request.terms.test } },
      async (span) => {
        const reply = await postLeadToBuyer(url, { leadId: request.leadId, test: request.terms.test, ...request.payload }, timeoutMs);
        span.setAttribute('leadflow.buyer.outcome', reply.outcome);
        if (reply.httpStatus !== null) span.setAttribute('http.response.status_code', reply.httpStatus);
        span.end();
        return reply;
      },
    );
  }
}
