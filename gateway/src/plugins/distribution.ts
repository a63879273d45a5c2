import type { DistributionServiceClient } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import type { GrpcClientTls } from '@leadflow/service-kit/config';
import { grpcChannelCredentials, reloadPeriodically } from '@leadflow/service-kit/grpc-tls';
import fp from 'fastify-plugin';
import { createDistributionClient, DistributionCalls } from '../distribution/distribution-calls.js';

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

export const distribution = fp<DistributionPluginOptions>(
  async (app, options) => {
    if (options.client) {
      app.decorate('distribution', new DistributionCalls(options.client, options.intakeDeadlineMs));
      return;
    }
    // TLS when configured (the gateway's certificate for mutual TLS); renewed certificate files are
    // picked up by new connections.
    const channel = grpcChannelCredentials(options.tls);
    const client = createDistributionClient(options.address, channel.credentials);
    const stopReloading = channel.files ? reloadPeriodically(channel.files, app.log) : undefined;
    app.decorate('distribution', new DistributionCalls(client, options.intakeDeadlineMs));
    app.addHook('onClose', async () => {
      stopReloading?.();
      client.close();
    });
  },
  { name: 'distribution' },
);
