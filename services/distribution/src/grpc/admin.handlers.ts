import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { Tracer } from '@opentelemetry/api';
import type {
  AdminServiceServer,
  ApplyBuyersRequest,
  BuyerSummary,
  GetReportRequest,
  Publisher,
  PublisherKey,
} from '../../../../proto/generated/leadflow/admin/v1/admin.js';
import type { Logger } from '../../../common/logger.js';
import { redactedDefinition } from '../buyers/buyer.js';
import type { BuyerService } from '../buyers/buyer.service.js';
import type { BuyerReports } from '../buyers/buyer-reports.js';
import type { PublisherKeyRow } from '../db/schema.js';
import type { LeadResolution } from '../leads/lead-resolution.js';
import type { PublisherService, PublisherWithKeys } from '../publishers/publisher.service.js';
import type { ReportService } from '../reports/report.service.js';
import type { PiiLifecycle } from '../security/pii-lifecycle.js';
import { requireAdmin } from './admin-auth.js';
import { unary } from './unary.js';

export interface AdminHandlerDependencies {
  publishers: PublisherService;
  buyers: BuyerService;
  buyerReports: BuyerReports;
  reports: ReportService;
  resolution: LeadResolution;
  pii: PiiLifecycle;
  adminToken: string;
  tracer: Tracer;
  logger: Logger;
}

function keyMessage(key: PublisherKeyRow): PublisherKey {
  return { id: key.id, hint: key.key_hint, createdAtMs: key.created_at, revokedAtMs: key.revoked_at ?? 0 };
}

function publisherMessage(publisher: PublisherWithKeys): Publisher {
  return {
    id: publisher.id,
    name: publisher.name,
    rateLimitPerMinute: publisher.rate_limit_per_minute,
    payoutShareBps: publisher.payout_share_bps,
    createdAtMs: publisher.created_at,
    keys: publisher.keys.map(keyMessage),
  };
}

export function adminHandlers(deps: AdminHandlerDependencies): AdminServiceServer {
  const service = 'leadflow.admin.v1.AdminService';
  /** Every admin call: authenticated first, then the handler. */
  const admin = <Req, Res>(method: string, handler: (request: Req) => Promise<Res>) =>
    unary<Req, Res>(
      `${service}/${method}`,
      deps.tracer,
      deps.logger,
      async (request, call: ServerUnaryCall<Req, Res>) => {
        requireAdmin(call.metadata, deps.adminToken);
        return handler(request);
      },
    );

  return {
    createPublisher: admin(
      'CreatePublisher',
      async (request: { name: string; rateLimitPerMinute: number; payoutShareBps: number }) => {
        const { publisher, key } = await deps.publishers.create({
          name: request.name,
          rateLimitPerMinute: request.rateLimitPerMinute,
          payoutShareBps: request.payoutShareBps,
        });
        return { publisher: publisherMessage(publisher), key };
      },
    ),
    listPublishers: admin('ListPublishers', async () => ({
      publishers: (await deps.publishers.list()).map(publisherMessage),
    })),
    rotatePublisherKey: admin('RotatePublisherKey', async (request: { publisherId: string }) => {
      const issued = await deps.publishers.rotateKey(request.publisherId);
      return { keyInfo: keyMessage(issued.info), key: issued.key };
    }),
    revokePublisherKey: admin('RevokePublisherKey', async (request: { keyId: string }) => ({
      keyInfo: keyMessage(await deps.publishers.revokeKey(request.keyId)),
    })),
    setPublisherRateLimit: admin(
      'SetPublisherRateLimit',
      async (request: { publisherId: string; rateLimitPerMinute: number }) => ({
        publisher: publisherMessage(
          await deps.publishers.setRateLimit(request.publisherId, request.rateLimitPerMinute),
        ),
      }),
    ),
    applyBuyers: admin('ApplyBuyers', async (request: ApplyBuyersRequest) => {
      const result = await deps.buyers.apply(request.documentJson, request.dryRun);
      return result.ok ? { buyers: result.buyers, errors: [] } : { buyers: [], errors: result.errors };
    }),
    listBuyers: admin('ListBuyers', async () => ({
      buyers: await deps.buyerReports.summaries(await deps.buyers.list()),
    })),
    getBuyer: admin('GetBuyer', async (request: { buyer: string }) => {
      const buyer = await deps.buyers.get(request.buyer);
      const [summary] = await deps.buyerReports.summaries([buyer]);
      return {
        summary: summary as BuyerSummary,
        definitionJson: JSON.stringify(redactedDefinition(buyer.definition), null, 2),
      };
    }),
    getReport: admin('GetReport', (request: GetReportRequest) => deps.reports.report(request)),
    purgeSensitiveData: admin('PurgeSensitiveData', async (request: { olderThanDays: number }) => ({
      purged: await deps.pii.purge(request.olderThanDays),
    })),
    reencryptSensitiveData: admin('ReencryptSensitiveData', (request: { batchSize: number }) =>
      deps.pii.reencrypt(request.batchSize),
    ),
    listUnconfirmedLeads: admin('ListUnconfirmedLeads', async (request: { limit: number }) => ({
      leads: (await deps.resolution.listUnconfirmed(request.limit)).map((lead) => ({
        leadId: lead.leadId,
        publisherId: lead.publisherId,
        clickid: lead.clickid,
        buyerId: lead.buyerId,
        postId: lead.postId,
        postedAtMs: lead.postedAt,
        test: lead.test,
      })),
    })),
    resolveLead: admin('ResolveLead', (request: { leadId: string; sold: boolean; chargeCents: number }) =>
      deps.resolution.resolve(
        request.leadId,
        request.sold
          ? { sold: true, chargeCents: request.chargeCents > 0 ? request.chargeCents : undefined }
          : { sold: false },
        'operator',
      ),
    ),
    setBuyerActive: admin('SetBuyerActive', async (request: { buyer: string; active: boolean }) => {
      const [summary] = await deps.buyerReports.summaries([await deps.buyers.setActive(request.buyer, request.active)]);
      return { summary };
    }),
  };
}
