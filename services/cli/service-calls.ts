import { connectivityState, Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  AdminServiceClient,
  type ApplyBuyersResponse,
  type BuyerSummary,
  type CreatePublisherRequest,
  type GetReportRequest,
  type Publisher,
  type PublisherKey,
  type ReencryptSensitiveDataResponse,
  type ReportRow,
  type ResolveLeadRequest,
  type ResolveLeadResponse,
  type UnconfirmedLead,
} from '../../proto/generated/leadflow/admin/v1/admin.js';
import {
  DistributionServiceClient,
  type LeadRecord,
} from '../../proto/generated/leadflow/distribution/v1/distribution.js';
import { ConfigError } from '../common/config.js';
import { grpcChannelCredentials } from '../common/grpc-tls.js';
import { callUnary, type UnaryMethod } from '../common/grpc-unary.js';
import { describeCallError } from './call-errors.js';
import type { Connection } from './connection.js';
import { CliFailure } from './errors.js';

/** Every call answers within this or fails: a CLI should not hang on a service that does not answer. */
const CALL_DEADLINE_MS = 5000;
/** Purging or re-encrypting a large table takes minutes; should the CLI stop waiting, the service finishes anyway. */
const MAINTENANCE_DEADLINE_MS = 60 * 60 * 1000;
/** A report reads every lead in its range: over millions of them, more than seconds. */
const REPORT_DEADLINE_MS = 5 * 60 * 1000;

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

/**
 * The admin calls the CLI makes, as promises carrying the admin token and a
 * deadline; a failed call rejects with a CliFailure whose message is safe to print.
 */
export class ServiceCalls {
  private readonly admin: AdminServiceClient;
  private readonly distribution: DistributionServiceClient;

  constructor(private readonly connection: Connection) {
    const channelCredentials = transportCredentials(connection);
    this.admin = new AdminServiceClient(connection.address, channelCredentials);
    // Both services are served on one port: one channel, one connection.
    this.distribution = new DistributionServiceClient(connection.address, channelCredentials, {
      channelOverride: this.admin.getChannel(),
    });
  }

  async createPublisher(request: CreatePublisherRequest): Promise<{ publisher: Publisher; key: string }> {
    const response = await this.call(this.admin.createPublisher.bind(this.admin), request);
    return { publisher: present(response.publisher, 'publisher'), key: response.key };
  }

  async listPublishers(): Promise<Publisher[]> {
    return (await this.call(this.admin.listPublishers.bind(this.admin), {})).publishers;
  }

  async rotatePublisherKey(publisherId: string): Promise<{ keyInfo: PublisherKey; key: string }> {
    const response = await this.call(this.admin.rotatePublisherKey.bind(this.admin), { publisherId });
    return { keyInfo: present(response.keyInfo, 'key'), key: response.key };
  }

  async revokePublisherKey(keyId: string): Promise<PublisherKey> {
    return present((await this.call(this.admin.revokePublisherKey.bind(this.admin), { keyId })).keyInfo, 'key');
  }

  async setPublisherRateLimit(publisherId: string, rateLimitPerMinute: number): Promise<Publisher> {
    const response = await this.call(this.admin.setPublisherRateLimit.bind(this.admin), {
      publisherId,
      rateLimitPerMinute,
    });
    return present(response.publisher, 'publisher');
  }

  /** The document's mistakes come back in the answer, not as a failed call. */
  applyBuyers(documentJson: string, dryRun: boolean): Promise<ApplyBuyersResponse> {
    return this.call(this.admin.applyBuyers.bind(this.admin), { documentJson, dryRun });
  }

  async listBuyers(): Promise<BuyerSummary[]> {
    return (await this.call(this.admin.listBuyers.bind(this.admin), {})).buyers;
  }

  /** `buyer` is an id or a name. */
  async getBuyer(buyer: string): Promise<{ summary: BuyerSummary; definition: unknown }> {
    const response = await this.call(this.admin.getBuyer.bind(this.admin), { buyer });
    return {
      summary: present(response.summary, 'buyer'),
      definition: parsedJson(response.definitionJson, 'definition'),
    };
  }

  async setBuyerActive(buyer: string, active: boolean): Promise<BuyerSummary> {
    return present((await this.call(this.admin.setBuyerActive.bind(this.admin), { buyer, active })).summary, 'buyer');
  }

  async getLead(leadId: string): Promise<LeadRecord> {
    return present((await this.call(this.distribution.getLead.bind(this.distribution), { leadId })).lead, 'lead');
  }

  async listUnconfirmedLeads(limit: number): Promise<UnconfirmedLead[]> {
    return (await this.call(this.admin.listUnconfirmedLeads.bind(this.admin), { limit })).leads;
  }

  async resolveLead(request: ResolveLeadRequest): Promise<ResolveLeadResponse> {
    return this.call(this.admin.resolveLead.bind(this.admin), request);
  }

  async getReport(request: GetReportRequest): Promise<Report> {
    const response = await this.call(this.admin.getReport.bind(this.admin), request, REPORT_DEADLINE_MS);
    return { rows: response.rows, total: present(response.total, 'total') };
  }

  async purgeSensitiveData(olderThanDays: number): Promise<number> {
    return (await this.call(this.admin.purgeSensitiveData.bind(this.admin), { olderThanDays }, MAINTENANCE_DEADLINE_MS))
      .purged;
  }

  reencryptSensitiveData(batchSize: number): Promise<ReencryptSensitiveDataResponse> {
    return this.call(this.admin.reencryptSensitiveData.bind(this.admin), { batchSize }, MAINTENANCE_DEADLINE_MS);
  }

  close(): void {
    this.admin.close();
  }

  private call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, deadlineMs = CALL_DEADLINE_MS): Promise<Res> {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${this.connection.token}`);
    return callUnary(method, request, metadata, { deadline: Date.now() + deadlineMs }).catch((error: ServiceError) => {
      const serviceReached = this.admin.getChannel().getConnectivityState(false) === connectivityState.READY;
      throw new CliFailure(describeCallError(error, this.connection, { deadlineMs, serviceReached }));
    });
  }
}
