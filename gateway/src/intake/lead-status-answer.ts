import type { GetLeadStatusResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { GatewayError } from '../errors.js';
import { type IntakeAnswer, intakeAnswer } from './intake-answer.js';

/** A lead with no final outcome yet: held for a buyer's confirmation, or still being sold. */
export interface PendingAnswer {
  leadId: string;
  status: 'pending';
  reason: string;
  processingTime: number;
}

export type LeadStatusAnswer = IntakeAnswer | PendingAnswer;

/** A lead's outcome as the intake answered it (sold, rejected), or pending while it has none. */
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
    case undefined:
      throw GatewayError.of('INTERNAL_SERVER_ERROR', 'GetLeadStatus answered without an outcome');
  }
}
