import type { DistributionServiceClient } from '../../../proto/generated/leadflow/distribution/v1/distribution.js';
import type { GrpcClientTls } from '../../../services/common/config.js';
import { createDistributionClient, DistributionCalls } from '../distribution/distribution-calls.js';
import { shared } from './shared.js';

declare module 'fastify' {
  interface FastifyInstance {
    distribution: DistributionCalls;
  }
}

export interface DistributionPluginOptions {
  address: string;
  /** TLS towards the distribution service; undefined = plaintext. */
  tls?: GrpcClientTls | undefined;
  intakeDeadlineMs: number;
  /** A client owned by the caller; when absent, one is created for `address` and closed with the app. */
  client?: DistributionServiceClient | undefined;
}

export const distribution = shared<DistributionPluginOptions>('distribution', async (app, options) => {
  const client = options.client ?? createDistributionClient(options.address, options.tls);
  app.decorate('distribution', new DistributionCalls(client, options.intakeDeadlineMs));
  if (!options.client) {
    app.addHook('onClose', async () => {
      client.close();
    });
  }
});
