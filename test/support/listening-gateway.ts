import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '@leadflow/service-kit/config';
import type { FastifyInstance } from 'fastify';
import { testGateway } from './gateway.js';
import { RawClient } from './raw-client.js';

/** A test's gateway listening on 127.0.0.1, and the raw clients connected to it; `close` ends them all. */
export class ListeningGateway {
  app: FastifyInstance | undefined;
  private port = 0;
  private readonly clients: RawClient[] = [];

  /** The distribution service's address is read when the gateway starts, once that service has its port. */
  constructor(private readonly distribution: { readonly address: string }) {}

  async listen(overrides: Partial<GatewayConfig>): Promise<void> {
    this.app = testGateway(this.distribution.address, overrides);
    await this.app.listen({ host: '127.0.0.1', port: 0 });
    this.port = (this.app.server.address() as AddressInfo).port;
  }

  /** The address of `path` on this gateway, for real HTTP clients. */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async client(): Promise<RawClient> {
    const opened = await RawClient.open(this.port);
    this.clients.push(opened);
    return opened;
  }

  /** The TCP connections the gateway holds open, whatever state they are in. */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.app?.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  async close(): Promise<void> {
    for (const open of this.clients.splice(0)) open.destroy();
    await this.app?.close();
  }
}
