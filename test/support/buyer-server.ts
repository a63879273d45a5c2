import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type BuyerBehaviour =
  | { kind: 'accept'; redirectUrl?: string; delayMs?: number }
  | { kind: 'reject'; reason?: string; delayMs?: number }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' }
  | { kind: 'hang' }
  /** Answers as `answer` says once it resolves: the test decides when the buyer answers. */
  | { kind: 'later'; answer: Promise<BuyerBehaviour> };

export interface ReceivedPost {
  path: string;
  body: Record<string, unknown>;
}

/** A real HTTP buyer on loopback whose answer per path is scripted by the test. */
export interface TestBuyerServer {
  url(path: string): string;
  behave(path: string, behaviour: BuyerBehaviour): void;
  received(path?: string): ReceivedPost[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startBuyerServer(): Promise<TestBuyerServer> {
  const behaviours = new Map<string, BuyerBehaviour>();
  const posts: ReceivedPost[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer(async (request, response) => {
    const path = request.url ?? '/';
    posts.push({ path, body: JSON.parse(await readBody(request)) });
    let behaviour = behaviours.get(path) ?? { kind: 'status', status: 404 };
    while (behaviour.kind === 'later') behaviour = await behaviour.answer;
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    switch (behaviour.kind) {
      case 'accept':
        if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
        return json(200, { accepted: true, redirectUrl: behaviour.redirectUrl });
      case 'reject':
        if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
        return json(200, { accepted: false, reason: behaviour.reason ?? 'not interested' });
      case 'status':
        return json(behaviour.status, { error: 'buyer failure' });
      case 'garbage':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html><body>Service temporarily overloaded</body></html>');
      case 'hang':
        hanging.add(response);
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    behave: (path, behaviour) => behaviours.set(path, behaviour),
    received: (path) => posts.filter((post) => path === undefined || post.path === path),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
