import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 (or `host`) that records what it receives and answers as the test scripts it. */
export interface LocalServer {
  url(path?: string): string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startLocalServer(handler: Handler, host = '127.0.0.1'): Promise<LocalServer> {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const request = {
      method: incoming.method ?? '',
      path: incoming.url ?? '/',
      headers: incoming.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(request);
    handler(request, response);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return {
    url: (path = '/') => `http://${authority}${path}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
