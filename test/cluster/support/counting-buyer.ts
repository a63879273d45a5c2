import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What a buyer endpoint does with a post: accept it (after `delayMs`), reject it, hold it until the
 * test releases it, or hang (never answer: the caller's timeout decides). `status`: the endpoint is
 * the status lookup of the buyer at `of`, and answers the truth: `{"accepted": true}` for a lead that
 * buyer accepted, a 503 while its post is still held (undecided), else `{"accepted": false}`.
 */
export type CountingBehaviour =
  | { kind: 'accept'; delayMs?: number }
  | { kind: 'reject' }
  | { kind: 'hold' }
  | { kind: 'hang' }
  | { kind: 'status'; of: string };

/** A post the buyer took: from its side, the lead is bought whether or not the answer reached the caller. */
export interface Acceptance {
  /** The endpoint (one buyer of the apply document each). */
  path: string;
  leadId: string;
  /** The idempotency reference sent with the post, when the mapping carries it. */
  attemptId: string | undefined;
  /** False when the caller's connection was gone before the answer was written (a crash, a timeout). */
  delivered: boolean;
  at: number;
}

export interface ReceivedPost {
  path: string;
  leadId: string;
  attemptId: string | undefined;
  at: number;
}

/** A status lookup the buyer was asked, and what it answered. */
export interface Lookup extends ReceivedPost {
  answer: 'accepted' | 'not accepted' | 'undecided';
}

/** How a held post is answered once released. */
export type HeldAnswer = 'accept' | 'reject';

/**
 * A real HTTP buyer on loopback, one endpoint per buyer, that counts what it
 * accepts: the buyer-side truth a duplicate sale shows in. It can hold posts
 * until the test releases them, so a test can kill the caller while the post
 * is at the buyer and then have the buyer accept into a dead connection.
 */
export interface CountingBuyer {
  url(path: string): string;
  behave(path: string, behaviour: CountingBehaviour): void;
  /** Every post received, in arrival order (status lookups apart). */
  readonly received: ReceivedPost[];
  readonly lookups: Lookup[];
  /** Every post accepted, in the order the answers were given. */
  readonly acceptances: Acceptance[];
  /** Posts being held, oldest first. */
  held(path?: string): ReceivedPost[];
  /** Answers every held post of `path` (or of every path). */
  release(answer: HeldAnswer, path?: string): void;
  close(): Promise<void>;
}

interface Held {
  post: ReceivedPost;
  answer(answer: HeldAnswer): void;
}

export async function startCountingBuyer(): Promise<CountingBuyer> {
  const behaviours = new Map<string, CountingBehaviour>();
  const received: ReceivedPost[] = [];
  const lookups: Lookup[] = [];
  const acceptances: Acceptance[] = [];
  const holding: Held[] = [];
  const open = new Set<ServerResponse>();

  /**
   * Writes the answer, telling apart one that reached a live connection from one written into a dead
   * one. Never waits for the write: on a connection the caller's death is cutting, it may never finish.
   */
  const answer = (post: ReceivedPost, response: ServerResponse, accept: boolean) => {
    // Counted before the write: the buyer has taken the lead whatever happens to the connection.
    if (accept)
      acceptances.push({
        path: post.path,
        leadId: post.leadId,
        attemptId: post.attemptId,
        delivered: !response.destroyed && !response.socket?.destroyed,
        at: Date.now(),
      });
    if (response.destroyed) return;
    const body = accept
      ? { accepted: true, redirectUrl: `https://lender.example/apply/${post.leadId}` }
      : { accepted: false, reason: 'not interested' };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const server = createServer(async (request, response) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch {
      // The caller died while sending: no post arrived.
      return;
    }
    const path = request.url ?? '/';
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      // counted as a post of no lead: the assertions name it
    }
    const post: ReceivedPost = {
      path,
      leadId: String(body.leadId),
      attemptId: typeof body.attemptId === 'string' ? body.attemptId : undefined,
      at: Date.now(),
    };
    const behaviour = behaviours.get(path) ?? { kind: 'reject' };
    if (behaviour.kind === 'status') {
      const verdict = holding.some((held) => held.post.path === behaviour.of && held.post.leadId === post.leadId)
        ? 'undecided'
        : acceptances.some((acceptance) => acceptance.path === behaviour.of && acceptance.leadId === post.leadId)
          ? 'accepted'
          : 'not accepted';
      lookups.push({ ...post, answer: verdict });
      response.writeHead(verdict === 'undecided' ? 503 : 200, { 'content-type': 'application/json' });
      return response.end(
        JSON.stringify(verdict === 'undecided' ? { error: 'still deciding' } : { accepted: verdict === 'accepted' }),
      );
    }
    received.push(post);
    switch (behaviour.kind) {
      case 'accept':
        if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
        return answer(post, response, true);
      case 'reject':
        return answer(post, response, false);
      case 'hold':
        holding.push({ post, answer: (held) => answer(post, response, held === 'accept') });
        return;
      case 'hang':
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    behave: (path, behaviour) => behaviours.set(path, behaviour),
    received,
    lookups,
    acceptances,
    held: (path) => holding.filter((held) => path === undefined || held.post.path === path).map((held) => held.post),
    release(reply, path) {
      const due = holding.filter((held) => path === undefined || held.post.path === path);
      for (const held of due) {
        holding.splice(holding.indexOf(held), 1);
        held.answer(reply);
      }
    },
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
