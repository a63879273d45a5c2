import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { AdminServiceClient } from '@leadflow/proto/leadflow/admin/v1/admin';
import { callUnary, type UnaryMethod } from '@leadflow/service-kit/grpc-unary';

const PUBLISHERS = 50;
const CALL_DEADLINE_MS = 10_000;

/** Where the admin service of a started leadflow answers. */
export interface AdminAccess {
  grpcAddress: string;
  adminToken: string;
}

/**
 * Through the admin service: publishers whose rate limit never binds, and the buyers of an apply document
 * (parse-buyers.ts) through ApplyBuyers; any other active buyer (the embedded default's demo lender) is
 * paused, so that leads go to these buyers only. Returns the publishers' keys.
 */
export async function seedPublishersAndBuyers(
  { grpcAddress, adminToken }: AdminAccess,
  buyersDocument: unknown,
): Promise<string[]> {
  const client = new AdminServiceClient(grpcAddress, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${adminToken}`);
  const call = <Req, Res>(rpc: string, method: UnaryMethod<Req, Res>, request: Req): Promise<Res> =>
    callUnary(method.bind(client), request, metadata, { deadline: Date.now() + CALL_DEADLINE_MS }).catch(
      (error: ServiceError) => {
        throw new Error(`admin ${rpc} failed: ${error.message}`);
      },
    );
  try {
    const keys = await Promise.all(
      Array.from({ length: PUBLISHERS }, async (_, i) => {
        const request = { name: `bench-publisher-${i}`, rateLimitPerMinute: 1_000_000, payoutShareBps: 8_000 };
        return (await call('CreatePublisher', client.createPublisher, request)).key;
      }),
    );
    const applied = await call('ApplyBuyers', client.applyBuyers, {
      documentJson: JSON.stringify(buyersDocument),
      dryRun: false,
    });
    if (applied.errors.length > 0) {
      const errors = applied.errors.map((error) => `${error.path || '(document)'}: ${error.message}`);
      throw new Error(`admin ApplyBuyers refused the bench's buyers:\n  ${errors.join('\n  ')}`);
    }
    const ours = new Set(applied.buyers.map((buyer) => buyer.id));
    const { buyers } = await call('ListBuyers', client.listBuyers, { pageSize: 0, pageToken: '' });
    for (const other of buyers.filter((buyer) => buyer.active && !ours.has(buyer.id))) {
      await call('SetBuyerActive', client.setBuyerActive, { buyer: other.id, active: false });
    }
    return keys;
  } finally {
    client.close();
  }
}
