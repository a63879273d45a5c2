import type {
  DistributionServiceServer,
  GetLeadStatusRequest,
  GetLeadStatusResponse,
  ResolvePublisherKeyRequest,
  ResolvePublisherKeyResponse,
  SubmitLeadRequest,
  SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import type { Logger } from '@leadflow/service-kit/logger';
import { durationOfMs } from '@leadflow/service-kit/proto-time';
import type { Tracer } from '@opentelemetry/api';
import type { IntakeService } from '../intake/intake.service.js';
import type { IntakeOutcome } from '../intake/intake-outcome.js';
import type { LeadStatusAnswer, LeadStatusLookup } from '../intake/lead-status.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import { invalidLeadError } from './invalid-lead.js';
import { answerBy, unaryMethods } from './unary.js';

export interface DistributionHandlerDependencies {
  intake: IntakeService;
  publishers: PublisherService;
  leadStatus: LeadStatusLookup;
  tracer: Tracer;
  logger: Logger;
}

function outcomeMessage(outcome: IntakeOutcome): SubmitLeadResponse['outcome'] {
  switch (outcome.kind) {
    case 'sold':
      return { $case: 'sold', value: soldMessage(outcome) };
    case 'rejected':
      return { $case: 'rejected', value: { leadId: outcome.leadId, reason: outcome.reason } };
    case 'unconfirmed':
      return { $case: 'unconfirmed', value: { leadId: outcome.leadId, reason: outcome.reason } };
    case 'invalid':
      throw invalidLeadError(outcome.errors, outcome.clickidReused);
  }
}

function soldMessage(outcome: Extract<IntakeOutcome, { kind: 'sold' }>) {
  return {
    leadId: outcome.leadId,
    payoutCents: outcome.payoutCents,
    buyerId: outcome.buyerId,
    redirectUrl: outcome.redirectUrl,
  };
}

function statusMessage(answer: LeadStatusAnswer): GetLeadStatusResponse['outcome'] {
  switch (answer.kind) {
    case 'sold':
      return { $case: 'sold', value: soldMessage(answer) };
    case 'rejected':
      return { $case: 'rejected', value: { leadId: answer.leadId, reason: answer.reason } };
    case 'pending':
      return { $case: 'pending', value: { leadId: answer.leadId, reason: answer.reason } };
    case 'returned': {
      const { leadId, clawbackCents, buyerId, reason } = answer;
      return { $case: 'returned', value: { leadId, clawbackCents, buyerId, reason } };
    }
  }
}

export function distributionHandlers(deps: DistributionHandlerDependencies): DistributionServiceServer {
  const method = unaryMethods('leadflow.distribution.v1.DistributionService', deps.tracer, deps.logger);
  return {
    submitLead: method('SubmitLead', async (request: SubmitLeadRequest, call) => {
      const result = await deps.intake.submit(
        request.webmasterKey,
        request.lead ?? Lead.create(),
        request.nonStringFields,
        answerBy(call),
      );
      return {
        outcome: outcomeMessage(result.outcome),
        buyerWait: durationOfMs(result.buyerWaitMs),
        replayed: result.replayed,
      };
    }),
    resolvePublisherKey: method(
      'ResolvePublisherKey',
      async (request: ResolvePublisherKeyRequest): Promise<ResolvePublisherKeyResponse> => {
        const live = await deps.publishers.resolveKey(request.webmasterKey);
        return live
          ? { valid: true, publisherId: live.publisherId, rateLimitPerMinute: live.rateLimitPerMinute }
          : { valid: false, publisherId: '', rateLimitPerMinute: 0 };
      },
    ),
    getLeadStatus: method(
      'GetLeadStatus',
      async (request: GetLeadStatusRequest): Promise<GetLeadStatusResponse> => ({
        outcome: statusMessage(await deps.leadStatus.statusOf(request.webmasterKey, request.clickid)),
      }),
    ),
  };
}
