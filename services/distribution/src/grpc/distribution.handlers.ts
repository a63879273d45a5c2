import type { Tracer } from '@opentelemetry/api';
import type {
  DistributionServiceServer,
  GetLeadRequest,
  GetLeadResponse,
  ResolvePublisherKeyRequest,
  ResolvePublisherKeyResponse,
  SubmitLeadRequest,
  SubmitLeadResponse,
} from '../../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { Lead } from '../../../../proto/generated/leadflow/distribution/v1/distribution.js';
import type { Logger } from '../../../common/logger.js';
import type { Db } from '../db/database.js';
import { ServiceError } from '../errors.js';
import type { IntakeOutcome, IntakeService } from '../leads/intake.service.js';
import * as leads from '../leads/lead.repository.js';
import { leadView } from '../leads/lead-view.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import { requireAdmin } from './admin-auth.js';
import { type GatewayIdentities, requireGateway } from './caller-identity.js';
import { answerBy, unary } from './unary.js';

export interface DistributionHandlerDependencies {
  db: Db;
  intake: IntakeService;
  publishers: PublisherService;
  cipher: PiiCipher;
  adminToken: string;
  /** Who may submit leads and resolve keys (see requireGateway). */
  gatewayIdentities: GatewayIdentities;
  tracer: Tracer;
  logger: Logger;
}

function outcomeMessage(outcome: IntakeOutcome): SubmitLeadResponse['outcome'] {
  switch (outcome.kind) {
    case 'sold':
      return {
        $case: 'sold',
        value: {
          leadId: outcome.leadId,
          priceCents: outcome.payoutCents,
          buyerId: outcome.buyerId,
          redirectUrl: outcome.redirectUrl,
        },
      };
    case 'rejected':
      return { $case: 'rejected', value: { leadId: outcome.leadId, reason: outcome.reason } };
    case 'unconfirmed':
      return { $case: 'unconfirmed', value: { leadId: outcome.leadId, reason: outcome.reason } };
    case 'invalid':
      return { $case: 'invalid', value: { errors: outcome.errors } };
  }
}

export function distributionHandlers(deps: DistributionHandlerDependencies): DistributionServiceServer {
  const { tracer, logger } = deps;
  const service = 'leadflow.distribution.v1.DistributionService';
  return {
    submitLead: unary<SubmitLeadRequest, SubmitLeadResponse>(
      `${service}/SubmitLead`,
      tracer,
      logger,
      async (request, call) => {
        requireGateway(call, deps.gatewayIdentities);
        const result = await deps.intake.submit(
          request.webmasterKey,
          request.lead ?? Lead.create(),
          request.nonStringFields,
          answerBy(call),
        );
        return { outcome: outcomeMessage(result.outcome), buyerWaitMs: result.buyerWaitMs, replayed: result.replayed };
      },
    ),

    resolvePublisherKey: unary<ResolvePublisherKeyRequest, ResolvePublisherKeyResponse>(
      `${service}/ResolvePublisherKey`,
      tracer,
      logger,
      async (request, call) => {
        requireGateway(call, deps.gatewayIdentities);
        const live = await deps.publishers.resolveKey(request.webmasterKey);
        return live
          ? { valid: true, publisherId: live.publisherId, rateLimitPerMinute: live.rateLimitPerMinute }
          : { valid: false, publisherId: '', rateLimitPerMinute: 0 };
      },
    ),

    getLead: unary<GetLeadRequest, GetLeadResponse>(`${service}/GetLead`, tracer, logger, async (request, call) => {
      requireAdmin(call.metadata, deps.adminToken);
      const row = await leads.findLead(deps.db, request.leadId);
      if (!row) throw new ServiceError('not_found', 'no such lead');
      return { lead: leadView(row, await leads.listBuyerAttempts(deps.db, row.id), deps.cipher) };
    }),
  };
}
