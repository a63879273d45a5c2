import type { SubmitLeadResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { GatewayError } from '../errors.js';

export interface SoldAnswer {
  leadId: string;
  status: 'sold';
  /** USD, a JSON number. */
  price: number;
  redirectUrl?: string;
  buyerId: string;
  processingTime: number;
}

export interface RejectedAnswer {
  leadId: string;
  status: 'rejected';
  reason: string;
  processingTime: number;
}

export type IntakeAnswer = SoldAnswer | RejectedAnswer;

/**
 * The 200 answer for a processed lead, in the spec's field order. (An invalid lead
 * is a failed call: see fromSubmitFailure.)
 */
export function intakeAnswer(
  response: Pick<SubmitLeadResponse, 'outcome'>,
  processingTime: () => number,
): IntakeAnswer {
  const outcome = response.outcome;
  switch (outcome?.$case) {
    case 'sold': {
      const { leadId, payoutCents, buyerId, redirectUrl } = outcome.value;
      return {
        leadId,
        status: 'sold',
        price: payoutCents / 100,
        ...(redirectUrl ? { redirectUrl } : {}),
        buyerId,
        processingTime: processingTime(),
      };
    }
    // Over HTTP an unconfirmed lead is a rejection: nothing was confirmed sold in time, and the reason
    // says the lead is held for the buyer's answer. A retry replays the final answer once it is settled.
    case 'rejected':
    case 'unconfirmed':
      return {
        leadId: outcome.value.leadId,
        status: 'rejected',
        reason: outcome.value.reason,
        processingTime: processingTime(),
      };
    case undefined:
      throw GatewayError.of('INTERNAL_SERVER_ERROR', 'SubmitLead answered without an outcome');
  }
}
