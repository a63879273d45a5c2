import type { Logger } from '@leadflow/service-kit/logger';
import type { IntakeResult } from './intake-outcome.js';

export interface AnsweredLead {
  result: IntakeResult;
  publisherId: string;
  test: boolean;
  /** The name of the buyer the outcome names (sold to, or awaiting the confirmation of). */
  buyerName: string | undefined;
  /** Milliseconds from the call's arrival to its answer, 2 decimals. */
  processingTime: number;
}

/** The buyer id an outcome names, if any. */
export function outcomeBuyerId(result: IntakeResult): string | undefined {
  const outcome = result.outcome;
  return outcome.kind === 'sold' ? outcome.buyerId : undefined;
}

/**
 * The one info line per lead answered: ids, outcome, buyer and time, which the SubmitLead span's trace and
 * span id join (the logger's mixin). Never a lead value: an invalid lead names its fields, not what they held.
 */
export function logLeadAnswered(logger: Logger, lead: AnsweredLead): void {
  const { outcome } = lead.result;
  const buyerId = outcomeBuyerId(lead.result);
  logger.info(
    {
      leadId: outcome.kind === 'invalid' ? undefined : outcome.leadId,
      publisherId: lead.publisherId,
      outcome: outcome.kind,
      replayed: lead.result.replayed,
      test: lead.test,
      ...(buyerId ? { buyerId, buyerName: lead.buyerName } : {}),
      ...(outcome.kind === 'sold' ? { payoutCents: outcome.payoutCents } : {}),
      ...(outcome.kind === 'rejected' || outcome.kind === 'unconfirmed' ? { reason: outcome.reason } : {}),
      ...(outcome.kind === 'invalid' ? { invalidFields: Object.keys(outcome.errors).sort() } : {}),
      processingTime: lead.processingTime,
    },
    'lead answered',
  );
}
