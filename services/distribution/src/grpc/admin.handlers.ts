import type {
  AdminServiceServer,
  ApplyBuyersRequest,
  BuyerSummary,
  CreatePublisherRequest,
  ListBuyersRequest,
  ListPublishersRequest,
  PublisherKey as PublisherKeyMessage,
  Publisher as PublisherMessage,
  TreeSettings as TreeSettingsMessage,
} from '@leadflow/proto/leadflow/admin/v1/admin';
import type { GetReportRequest } from '@leadflow/proto/leadflow/admin/v1/reports';
import { applyActions, routingModes } from '@leadflow/service-kit/admin-enums';
import type { Logger } from '@leadflow/service-kit/logger';
import { durationOfMs, timestampOfMs } from '@leadflow/service-kit/proto-time';
import type { Tracer } from '@opentelemetry/api';
import { redactedDefinition } from '../buyers/buyer.js';
import type { BuyerService } from '../buyers/buyer.service.js';
import { effectiveSettings, type TreeDefaults, type TreeSettings } from '../buyers/tree/tree-settings.js';
import type { LeadLookup } from '../leads/lead-lookup.js';
import type { PublisherPostbacks } from '../postbacks/publisher-postbacks.js';
import type { PublisherKeyInfo, PublisherWithKeys } from '../publishers/publisher.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { BuyerReports } from '../reports/buyer-reports.js';
import type { ReportService } from '../reports/report.service.js';
import type { LeadReturns } from '../returns/lead-returns.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import type { PiiLifecycle } from '../security/pii-lifecycle.js';
import type { LeadResolution } from '../selling/lead-resolution.js';
import { auditedMethods } from './admin-audit.js';
import { adminLeadHandlers } from './admin-leads.handlers.js';
import { adminPostbackHandlers } from './admin-postbacks.handlers.js';
import { pageInMemory } from './pages.js';
import { unaryMethods } from './unary.js';

export interface AdminHandlerDependencies {
  publishers: PublisherService;
  buyers: BuyerService;
  buyerReports: BuyerReports;
  reports: ReportService;
  leads: LeadLookup;
  resolution: LeadResolution;
  returns: LeadReturns;
  postbacks: PublisherPostbacks;
  pii: PiiLifecycle;
  cipher: PiiCipher;
  tracer: Tracer;
  logger: Logger;
  /** The environment's routing mode and ping window, under the applied tree settings. */
  treeDefaults: TreeDefaults;
}

function keyMessage(key: PublisherKeyInfo): PublisherKeyMessage {
  return {
    id: key.id,
    hint: key.hint,
    createTime: new Date(key.createdAt),
    revokeTime: timestampOfMs(key.revokedAt),
  };
}

function treeSettingsMessage(settings: TreeSettings): TreeSettingsMessage {
  return {
    routing: settings.routing === undefined ? 0 : routingModes.valueOf(settings.routing),
    pingWindow: settings.pingWindowMs === undefined ? undefined : durationOfMs(settings.pingWindowMs),
    tiers: settings.tiers.map(({ tier, pingWindowMs }) => ({ tier, pingWindow: durationOfMs(pingWindowMs) })),
  };
}

function publisherMessage(publisher: PublisherWithKeys): PublisherMessage {
  return {
    id: publisher.id,
    name: publisher.name,
    rateLimitPerMinute: publisher.rateLimitPerMinute,
    payoutShareBps: publisher.payoutShareBps,
    createTime: new Date(publisher.createdAt),
    keys: publisher.keys.map(keyMessage),
    clawbackBps: publisher.clawbackBps,
  };
}

export function adminHandlers(deps: AdminHandlerDependencies): AdminServiceServer {
  // Callers are checked before any of these runs (callerChecksInterceptor).
  // Each call writes one audit line (a refused one is logged by the check).
  const admin = auditedMethods(unaryMethods('leadflow.admin.v1.AdminService', deps.tracer, deps.logger), deps.logger);

  return {
    createPublisher: admin('CreatePublisher', async (request: CreatePublisherRequest) => {
      const { publisher, key } = await deps.publishers.create({
        name: request.name,
        rateLimitPerMinute: request.rateLimitPerMinute,
        payoutShareBps: request.payoutShareBps,
        clawbackBps: request.clawbackBps,
      });
      return { publisher: publisherMessage(publisher), key };
    }),
    listPublishers: admin('ListPublishers', async (request: ListPublishersRequest) => {
      const page = pageInMemory(await deps.publishers.list(), (publisher) => publisher.id, request, ['ListPublishers']);
      return { publishers: page.items.map(publisherMessage), nextPageToken: page.nextPageToken };
    }),
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
    setPublisherClawback: admin(
      'SetPublisherClawback',
      async (request: { publisherId: string; clawbackBps: number }) => ({
        publisher: publisherMessage(await deps.publishers.setClawback(request.publisherId, request.clawbackBps)),
      }),
    ),
    applyBuyers: admin('ApplyBuyers', async (request: ApplyBuyersRequest) => {
      const result = await deps.buyers.apply(request.documentJson, request.dryRun);
      if (!result.ok) return { buyers: [], errors: result.errors };
      return {
        buyers: result.buyers.map((buyer) => ({ ...buyer, action: applyActions.valueOf(buyer.action) })),
        errors: [],
        tree: result.tree === undefined ? undefined : applyActions.valueOf(result.tree),
      };
    }),
    getTreeSettings: admin('GetTreeSettings', async () => {
      const applied = await deps.buyers.storedTreeSettings();
      return {
        applied: treeSettingsMessage(applied),
        effective: treeSettingsMessage(effectiveSettings(applied, deps.treeDefaults)),
      };
    }),
    listBuyers: admin('ListBuyers', async (request: ListBuyersRequest) => {
      const page = pageInMemory(await deps.buyers.list(), (buyer) => buyer.id, request, ['ListBuyers']);
      return { buyers: await deps.buyerReports.summaries(page.items), nextPageToken: page.nextPageToken };
    }),
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
    setBuyerActive: admin('SetBuyerActive', async (request: { buyer: string; active: boolean }) => {
      const [summary] = await deps.buyerReports.summaries([await deps.buyers.setActive(request.buyer, request.active)]);
      return { summary };
    }),
    ...adminLeadHandlers(
      { lookup: deps.leads, resolution: deps.resolution, returns: deps.returns, cipher: deps.cipher },
      admin,
    ),
    ...adminPostbackHandlers(deps.postbacks, admin),
  };
}
