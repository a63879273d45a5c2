import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A slow buyer that accepts every lead, but only after at least `minDelayMs`
 * and once the test opens the gate: the test decides when leads in flight may
 * finish, so "in flight during the shutdown" does not depend on timing.
 */
export interface GatedBuyer {
  url: string;
  /** Lead ids posted so far, in arrival order. */
  received: string[];
  open(): void;
  close(): Promise<void>;
}

export async function startGatedBuyer(minDelayMs: number): Promise<GatedBuyer> {
  const received: string[] = [];
  const responses = new Set<ServerResponse>();
  let opened = false;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));

  const server = createServer(async (request, response) => {
    responses.add(response);
    response.on('close', () => responses.delete(response));
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { leadId?: string };
    received.push(String(body.leadId));
    await Promise.all([new Promise((resolve) => setTimeout(resolve, minDelayMs)), gate]);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ accepted: true, redirectUrl: 'https://lender.example/apply/slow' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slow`,
    received,
    open() {
      if (opened) return;
      opened = true;
      release();
    },
    async close() {
      release();
      for (const response of responses) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
