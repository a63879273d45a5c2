import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  AdminServiceClient,
  CreatePublisherRequest,
  UpsertBuyerRequest,
} from '../../proto/generated/leadflow/admin/v1/admin.js';

const PUBLISHERS = 50;
const CALL_DEADLINE_MS = 10_000;

/**
 * Through the admin service: publishers whose rate limit never binds, and one fixed-price buyer without a
 * post URL, which takes every lead. Returns the publishers' keys.
 */
export async function seedPublishersAndBuyer(grpcAddress: string, adminToken: string): Promise<string[]> {
  const client = new AdminServiceClient(grpcAddress, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${adminToken}`);
  const options = () => ({ deadline: Date.now() + CALL_DEADLINE_MS });
  try {
    const keys = await Promise.all(
      Array.from({ length: PUBLISHERS }, (_, i) => {
        // The payout share is set so that the buyer's 15.00 pays the publisher more than the leads' 10.00 floor.
        const request = CreatePublisherRequest.fromPartial({
          name: `bench-publisher-${i}`,
          rateLimitPerMinute: 1_000_000,
          payoutShareBps: 8_000,
        });
        return new Promise<string>((resolve, reject) => {
          client.createPublisher(request, metadata, options(), (error, response) =>
            error ? reject(explain('CreatePublisher', error)) : resolve(response.key),
          );
        });
      }),
    );
    const buyer = UpsertBuyerRequest.fromPartial({
      buyer: { name: 'bench-buyer', active: true, priority: 1, priceCents: 1_500, states: [], timeoutMs: 1_000 },
    });
    await new Promise<void>((resolve, reject) => {
      client.upsertBuyer(buyer, metadata, options(), (error) =>
        error ? reject(explain('UpsertBuyer', error)) : resolve(),
      );
    });
    return keys;
  } finally {
    client.close();
  }
}

function explain(rpc: string, error: ServiceError): Error {
  return new Error(`admin ${rpc} failed: ${error.message}`);
}
