import { credentials } from '@grpc/grpc-js';
import { AdminServiceClient } from '@leadflow/proto/leadflow/admin/v1/admin';
import { bearer, call } from '../../support/grpc.js';

/** The operator's side: the admin gRPC service of one running distribution process, with its bearer token. */
export class Admin {
  private readonly client: AdminServiceClient;

  constructor(
    address: string,
    private readonly token: string,
  ) {
    this.client = new AdminServiceClient(address, credentials.createInsecure());
  }

  /** `rateLimitPerMinute` 0 = the default (60 per minute). */
  async createPublisher(name: string, rateLimitPerMinute = 0): Promise<{ id: string; key: string }> {
    const created = await call(
      this.client.createPublisher.bind(this.client),
      { name, rateLimitPerMinute, payoutShareBps: 0 },
      bearer(this.token),
      {
        deadline: Date.now() + 30_000,
      },
    );
    return { id: created.publisher!.id, key: created.key };
  }

  /** Applies buyer entries (test/support/buyers.ts `testBuyer`); their ids by name. */
  async applyBuyers(buyers: Record<string, unknown>[]): Promise<Record<string, string>> {
    const result = await call(
      this.client.applyBuyers.bind(this.client),
      { documentJson: JSON.stringify({ buyers }), dryRun: false },
      bearer(this.token),
      { deadline: Date.now() + 30_000 },
    );
    if (result.errors.length > 0)
      throw new Error(result.errors.map((error) => `${error.path}: ${error.message}`).join('\n'));
    return Object.fromEntries(result.buyers.map((buyer) => [buyer.name, buyer.id]));
  }

  async setBuyerActive(buyer: string, active: boolean): Promise<void> {
    await call(this.client.setBuyerActive.bind(this.client), { buyer, active }, bearer(this.token), {
      deadline: Date.now() + 30_000,
    });
  }

  close(): void {
    this.client.close();
  }
}
