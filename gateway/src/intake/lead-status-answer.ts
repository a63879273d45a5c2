import type { GetLeadStatusResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { GatewayError } from '../errors.js';
import { type IntakeAnswer, intakeAnswer } from './intake-answer.js';

/** A lead with no final outcome yet: held for a buyer's confirmation, still being sold, or waiting for a retry. */
export interface PendingAnswer {
  leadId: string;
  status: 'pending';
  reason: string;
  processingTime: number;
}

/** A sold lead its buyer returned, in the terms of the lead.returned postback. */
export interface ReturnedAnswer {
  leadId: string;
  status: 'returned';
  /** USD, a JSON number: what the return takes back from the publisher's payout. */
  price: number;
  buyerId: string;
  /** The buyer's reason code. */
  reason: string;
  processingTime: number;
}

export type LeadStatusAnswer = IntakeAnswer | PendingAnswer | ReturnedAnswer;

/** A lead's outcome now: as the intake answered it (sold, rejected), pending while it has none, or returned. */
export function leadStatusAnswer(response: GetLeadStatusResponse, processingTime: () => number): LeadStatusAnswer {
  const outcome = response.outcome;
  switch (outcome?.$case) {
    case 'sold':
    case 'rejected':
      return intakeAnswer({ outcome }, processingTime);
    case 'pending':
      return {
        leadId: outcome.value.leadId,
        status: 'pending',
        reason: outcome.value.reason,
        processingTime: processingTime(),
      };
    case 'returned': {
      const { leadId, clawbackCents, buyerId, reason } = outcome.value;
      return {
        leadId,
        status: 'returned',
        price: clawbackCents / 100,
        buyerId,
        reason,
        processingTime: processingTime(),
      };
    }
    case undefined:
      throw GatewayError.of('INTERNAL_SERVER_ERROR', 'GetLeadStatus answered without an outcome');
  }
}
