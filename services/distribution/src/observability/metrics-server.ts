import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * An HTTP listener for Prometheus (GET /metrics) and for probes that cannot speak gRPC over TLS,
 * such as the kubelet's (GET /health/live: the process answers; GET /health/ready: it serves calls).
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
  isReady: () => boolean,
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === '/health/live') {
      response.writeHead(200, JSON_TYPE).end('{"status":"ok"}');
      return;
    }
    if (request.method === 'GET' && path === '/health/ready') {
      const ready = isReady();
      response
        .writeHead(ready ? 200 : 503, JSON_TYPE)
        .end(ready ? '{"status":"ok"}' : '{"status":"error","message":"not serving"}');
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A scrape in progress is not worth waiting for at shutdown.
      server.closeAllConnections();
      return closed;
    },
  };
}
