import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  status?: number;
  body: unknown;
}

/** A lender's API on loopback: each path answers its fixed JSON reply, any other path 404. */
export interface ScriptedLender {
  url(path: string): string;
  close(): Promise<void>;
}

export async function startScriptedLender(replies: Record<string, ScriptedReply>): Promise<ScriptedLender> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const reply = replies[request.url ?? '/'] ?? { status: 404, body: { error: 'no such endpoint' } };
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
