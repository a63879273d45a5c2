import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { markedBlock } from './doc-blocks.js';

/** One POST a publisher's receiver got, as it arrived. */
export interface ReceivedEvent {
  eventId: string | undefined;
  signature: string | undefined;
  rawBody: string;
}

/**
 * A publisher's postback receiver on loopback that answers 204 to every POST and keeps what it got. It can
 * be stopped (its port then refuses connections) and started again on the same port.
 */
export class PostbackReceiver {
  readonly received: ReceivedEvent[] = [];
  private server: Server | undefined;
  private port = 0;

  /** `answerDelayMs`: how long each POST is held before its answer, to keep deliveries in flight. */
  constructor(private readonly answerDelayMs = 0) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/leadflow/events`;
  }

  async start(): Promise<void> {
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      this.received.push({
        eventId: request.headers['leadflow-event-id'] as string | undefined,
        signature: request.headers['leadflow-signature'] as string | undefined,
        rawBody: Buffer.concat(chunks).toString('utf8'),
      });
      setTimeout(() => response.writeHead(204).end(), this.answerDelayMs);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** The events received, parsed, one per event id (the first of any repeats). */
  events(): Array<Record<string, unknown>> {
    const byId = new Map<string, Record<string, unknown>>();
    for (const { rawBody } of this.received) {
      const event = JSON.parse(rawBody) as Record<string, unknown>;
      if (!byId.has(event.id as string)) byId.set(event.id as string, event);
    }
    return [...byId.values()];
  }
}

type Verify = (rawBody: string, header: string | undefined, secret: string) => boolean;

/** The signature check of docs/http-api.md, exactly as a publisher copies it. */
export async function documentedVerifier(): Promise<Verify> {
  const file = path.join(tmpdir(), `verify-postback-${process.pid}-${Date.now()}.mjs`);
  await writeFile(file, markedBlock('docs/http-api.md', 'verify-postback'));
  const module = (await import(pathToFileURL(file).href)) as { verifyLeadflowSignature: Verify };
  return module.verifyLeadflowSignature;
}
