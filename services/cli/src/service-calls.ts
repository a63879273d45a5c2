import { connectivityState, type MethodDefinition, type ServiceError } from '@grpc/grpc-js';
import {
  AdminServiceClient,
  AdminServiceService,
  type ApplyBuyersResponse,
  type BuyerSummary,
  type CreatePublisherRequest,
  type GetTreeSettingsResponse,
  type Publisher,
  type PublisherKey,
  type ReencryptSensitiveDataResponse,
  type ResolveLeadRequest,
  type ResolveLeadResponse,
  type ReturnLeadRequest,
  type ReturnLeadResponse,
} from '@leadflow/proto/leadflow/admin/v1/admin';
import type {
  LeadRecord,
  ListLeadsRequest,
  ListLeadsResponse,
  UnconfirmedLead,
} from '@leadflow/proto/leadflow/admin/v1/leads';
import type { PostbackDelivery, PublisherPostback } from '@leadflow/proto/leadflow/admin/v1/postbacks';
import type { GetReportRequest, ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import { ConfigError } from '@leadflow/service-kit/config';
import { bearerTokenInterceptor, deadlineInterceptor } from '@leadflow/service-kit/grpc-client-interceptors';
import { grpcChannelCredentials } from '@leadflow/service-kit/grpc-tls';
import { callMethod } from '@leadflow/service-kit/grpc-unary';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { describeCallError } from './call-errors.js';
import type { Connection } from './connection.js';
import { CliFailure } from './errors.js';

/** Every call answers within this or fails: a CLI should not hang on a service that does not answer. */
const CALL_DEADLINE_MS = 5000;
/** Purging or re-encrypting a large table takes minutes; should the CLI stop waiting, the service finishes anyway. */
const MAINTENANCE_DEADLINE_MS = 60 * 60 * 1000;
/** A report reads every lead in its range: over millions of them, more than seconds. */
const REPORT_DEADLINE_MS = 5 * 60 * 1000;

const LONGER_DEADLINES_MS: Record<string, number> = {
  [AdminServiceService.getReport.path]: REPORT_DEADLINE_MS,
  [AdminServiceService.purgeSensitiveData.path]: MAINTENANCE_DEADLINE_MS,
  [AdminServiceService.reencryptSensitiveData.path]: MAINTENANCE_DEADLINE_MS,
};

function deadlineMsOf(path: string): number {
  return LONGER_DEADLINES_MS[path] ?? CALL_DEADLINE_MS;
}

/** ts-proto types a field holding a message as possibly undefined; the service always sets the ones read here. */
function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new CliFailure(`the service answered without a ${what}`);
  return value;
}

function parsedJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliFailure(`the service answered with a ${what} that is not JSON`);
  }
}

function transportCredentials(connection: Connection) {
  try {
    // The CLI lives for one command: its certificates are read once.
    return grpcChannelCredentials(connection.tls).credentials;
  } catch (error) {
    if (error instanceof ConfigError) throw new CliFailure(error.message);
    throw error;
  }
}

/** A report as the service answers it; the total is always there. */
export interface Report {
  rows: ReportRow[];
  total: ReportRow;
}

/** The most a page may hold: the CLI reads whole lists in pages this large. */
const MAX_PAGE_SIZE = 1000;

/** Every item of a paged list (AIP-158), up to `limit`. */
async function allPages<T>(
  page: (pageSize: number, pageToken: string) => Promise<{ items: T[]; nextPageToken: string }>,
  limit = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const items: T[] = [];
  let pageToken = '';
  do {
    const next = await page(Math.min(MAX_PAGE_SIZE, limit - items.length), pageToken);
    items.push(...next.items);
    pageToken = next.nextPageToken;
  } while (pageToken !== '' && items.length < limit);
  return items;
}

/**
 * The admin calls the CLI makes, as promises carrying the admin token and a
 * deadline; a failed call rejects with a CliFailure whose message is safe to print.
 */
export class ServiceCalls {
  private readonly admin: AdminServiceClient;

  constructor(private readonly connection: Connection) {
    this.admin = new AdminServiceClient(connection.address, transportCredentials(connection), {
      interceptors: [deadlineInterceptor(deadlineMsOf), bearerTokenInterceptor(connection.token)],
    });
  }

  async createPublisher(request: CreatePublisherRequest): Promise<{ publisher: Publisher; key: string }> {
    const response = await this.call(AdminServiceService.createPublisher, request);
    return { publisher: present(response.publisher, 'publisher'), key: response.key };
  }

  listPublishers(): Promise<Publisher[]> {
    return allPages(async (pageSize, pageToken) => {
      const response = await this.call(AdminServiceService.listPublishers, { pageSize, pageToken });
      return { items: response.publishers, nextPageToken: response.nextPageToken };
    });
  }

  async rotatePublisherKey(publisherId: string): Promise<{ keyInfo: PublisherKey; key: string }> {
    const response = await this.call(AdminServiceService.rotatePublisherKey, { publisherId });
    return { keyInfo: present(response.keyInfo, 'key'), key: response.key };
  }

  async revokePublisherKey(keyId: string): Promise<PublisherKey> {
    return present((await this.call(AdminServiceService.revokePublisherKey, { keyId })).keyInfo, 'key');
  }

  async setPublisherRateLimit(publisherId: string, rateLimitPerMinute: number): Promise<Publisher> {
    const response = await this.call(AdminServiceService.setPublisherRateLimit, {
      publisherId,
      rateLimitPerMinute,
    });
    return present(response.publisher, 'publisher');
  }

  async setPublisherPostback(publisherId: string, url: string, local: boolean): Promise<PublisherPostback> {
    const response = await this.call(AdminServiceService.setPublisherPostback, { publisherId, url, local });
    return present(response.postback, 'postback');
  }

  async getPublisherPostback(publisherId: string): Promise<PublisherPostback> {
    return present((await this.call(AdminServiceService.getPublisherPostback, { publisherId })).postback, 'postback');
  }

  async rotatePostbackSecret(publisherId: string): Promise<PublisherPostback> {
    return present((await this.call(AdminServiceService.rotatePostbackSecret, { publisherId })).postback, 'postback');
  }

  async listPostbackDeliveries(publisherId: string, pageSize: number): Promise<PostbackDelivery[]> {
    return (await this.call(AdminServiceService.listPostbackDeliveries, { publisherId, pageSize })).deliveries;
  }

  /** The document's mistakes come back in the answer, not as a failed call. */
  applyBuyers(documentJson: string, dryRun: boolean): Promise<ApplyBuyersResponse> {
    return this.call(AdminServiceService.applyBuyers, { documentJson, dryRun });
  }

  listBuyers(): Promise<BuyerSummary[]> {
    return allPages(async (pageSize, pageToken) => {
      const response = await this.call(AdminServiceService.listBuyers, { pageSize, pageToken });
      return { items: response.buyers, nextPageToken: response.nextPageToken };
    });
  }

  /** `buyer` is an id or a name. */
  async getBuyer(buyer: string): Promise<{ summary: BuyerSummary; definition: unknown }> {
    const response = await this.call(AdminServiceService.getBuyer, { buyer });
    return {
      summary: present(response.summary, 'buyer'),
      definition: parsedJson(response.definitionJson, 'definition'),
    };
  }

  getTreeSettings(): Promise<GetTreeSettingsResponse> {
    return this.call(AdminServiceService.getTreeSettings, {});
  }

  async setBuyerActive(buyer: string, active: boolean): Promise<BuyerSummary> {
    return present((await this.call(AdminServiceService.setBuyerActive, { buyer, active })).summary, 'buyer');
  }

  async getLead(leadId: string): Promise<LeadRecord> {
    return present((await this.call(AdminServiceService.getLead, { leadId })).lead, 'lead');
  }

  /** `publisherId` empty: any publisher's. */
  async findLead(clickid: string, publisherId: string): Promise<LeadRecord> {
    return present((await this.call(AdminServiceService.findLead, { clickid, publisherId })).lead, 'lead');
  }

  /** One page of leads, newest first. */
  listLeads(request: ListLeadsRequest): Promise<ListLeadsResponse> {
    return this.call(AdminServiceService.listLeads, request);
  }

  listUnconfirmedLeads(limit: number): Promise<UnconfirmedLead[]> {
    return allPages(async (pageSize, pageToken) => {
      const response = await this.call(AdminServiceService.listUnconfirmedLeads, { pageSize, pageToken });
      return { items: response.leads, nextPageToken: response.nextPageToken };
    }, limit);
  }

  async resolveLead(request: ResolveLeadRequest): Promise<ResolveLeadResponse> {
    return this.call(AdminServiceService.resolveLead, request);
  }

  returnLead(request: ReturnLeadRequest): Promise<ReturnLeadResponse> {
    return this.call(AdminServiceService.returnLead, request);
  }

  async setPublisherClawback(publisherId: string, clawbackBps: number): Promise<Publisher> {
    const response = await this.call(AdminServiceService.setPublisherClawback, { publisherId, clawbackBps });
    return present(response.publisher, 'publisher');
  }

  async getReport(request: GetReportRequest): Promise<Report> {
    const response = await this.call(AdminServiceService.getReport, request);
    return { rows: response.rows, total: present(response.total, 'total') };
  }

  async purgeSensitiveData(olderThanDays: number): Promise<number> {
    return (await this.call(AdminServiceService.purgeSensitiveData, { olderThanDays })).purged;
  }

  reencryptSensitiveData(batchSize: number): Promise<ReencryptSensitiveDataResponse> {
    return this.call(AdminServiceService.reencryptSensitiveData, { batchSize });
  }

  close(): void {
    this.admin.close();
  }

  private call<Req, Res>(method: MethodDefinition<Req, Res>, request: Req): Promise<Res> {
    return callMethod(this.admin, method, request).catch((error: ServiceError) => {
      const serviceReached = this.admin.getChannel().getConnectivityState(false) === connectivityState.READY;
      const deadlineMs = deadlineMsOf(method.path);
      const errorInfo = readRichStatus(error.metadata)?.errorInfo;
      throw new CliFailure(
        describeCallError(error, this.connection, { deadlineMs, serviceReached }),
        errorInfo && { reason: errorInfo.reason, metadata: errorInfo.metadata },
      );
    });
  }
}
