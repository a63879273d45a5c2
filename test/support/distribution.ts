import { randomBytes } from 'node:crypto';
import { credentials } from '@grpc/grpc-js';
import { isLeadField } from '@leadflow/core/lead-fields';
import { type RunningDistribution, startDistribution } from '@leadflow/distribution/src/server';
import { AdminServiceClient } from '@leadflow/proto/leadflow/admin/v1/admin';
import {
  DistributionServiceClient,
  Lead,
  type SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger, type Logger } from '@leadflow/service-kit/logger';
import { bearer, call } from './grpc.js';
import type { TestDatabase } from './test-database.js';

export interface TestDistribution {
  service: RunningDistribution;
  address: string;
  client: DistributionServiceClient;
  admin: AdminServiceClient;
  createPublisher(rateLimitPerMinute?: number): Promise<{ id: string; key: string }>;
  /** Applies buyer entries (see test/support/buyers.ts); their ids by name. Throws on a document error. */
  /** Applies a buyers document of these buyers, and of a `tree` when given; ids by name. */
  applyBuyers(buyers: Record<string, unknown>[], tree?: Record<string, unknown>): Promise<Record<string, string>>;
  submit(key: string, body: Record<string, unknown>): Promise<SubmitLeadResponse>;
  close(): Promise<void>;
}

/** A distribution service on a real loopback port over the given database, with admin and intake clients. */
export async function startTestDistribution(
  database: TestDatabase,
  options: { env?: Record<string, string>; logger?: Logger } = {},
): Promise<TestDistribution> {
  const config = loadDistributionConfig({
    ...database.env,
    LEADFLOW_GRPC_PORT: '0',
    LEADFLOW_METRICS_PORT: '0',
    ...options.env,
  });
  const service = await startDistribution(config, { logger: options.logger ?? createLogger('test', 'silent') });
  const address = `127.0.0.1:${service.port}`;
  const client = new DistributionServiceClient(address, credentials.createInsecure());
  const admin = new AdminServiceClient(address, credentials.createInsecure());
  const auth = () => bearer(service.adminToken);
  return {
    service,
    address,
    client,
    admin,
    async createPublisher(rateLimitPerMinute = 0) {
      const name = `Test publisher ${randomBytes(4).toString('hex')}`;
      const created = await call(
        admin.createPublisher.bind(admin),
        { name, rateLimitPerMinute, payoutShareBps: 0 },
        auth(),
      );
      return { id: created.publisher!.id, key: created.key };
    },
    async applyBuyers(buyers, tree) {
      const document = { ...(buyers.length > 0 && { buyers }), ...(tree && { tree }) };
      const result = await call(
        admin.applyBuyers.bind(admin),
        { documentJson: JSON.stringify(document), dryRun: false },
        auth(),
      );
      if (result.errors.length > 0)
        throw new Error(result.errors.map((error) => `${error.path}: ${error.message}`).join('\n'));
      // Apply never resumes a paused buyer; a test's market is what its document says, so resume those it wants active.
      for (const applied of result.buyers) {
        const wanted = buyers.find((buyer) => buyer.name === applied.name)?.active !== false;
        if (applied.paused && wanted)
          await call(admin.setBuyerActive.bind(admin), { buyer: applied.id, active: true }, auth());
      }
      return Object.fromEntries(result.buyers.map((buyer) => [buyer.name, buyer.id]));
    },
    submit(key, body) {
      const lead: Partial<Lead> = {};
      const nonStringFields: string[] = [];
      for (const [field, value] of Object.entries(body)) {
        if (!isLeadField(field)) continue;
        if (typeof value === 'string') lead[field] = value;
        else nonStringFields.push(field);
      }
      return call(client.submitLead.bind(client), { webmasterKey: key, lead: Lead.fromPartial(lead), nonStringFields });
    },
    async close() {
      client.close();
      admin.close();
      await service.close();
    },
  };
}
