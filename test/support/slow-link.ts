import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface SlowLinkOptions {
  /** One-way latency added to every byte, each direction. */
  delayMs: number;
  /** Throughput of each direction of each connection. */
  bytesPerSecond: number;
}

type Item = { kind: 'data'; chunk: Buffer; at: number } | { kind: 'end' | 'reset'; at: number };

/** Bytes queued in one direction before the link stops reading from its sender (TCP's window, roughly). */
const QUEUE_BYTES = 64 * 1024;
/** How often a direction sends what its rate allows. */
const TICK_MS = 5;

/**
 * One direction of a connection: what `from` sends reaches `to` `delayMs` later, no faster than the
 * rate. A FIN or a reset travels in order behind the data sent before it, as on a real network, so a
 * reset from the server can overtake nothing and is passed on as a reset (not softened into a close).
 */
class Direction {
  private readonly queue: Item[] = [];
  private queuedBytes = 0;
  private budget = 0;
  private lastRefill = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private done = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly options: SlowLinkOptions,
  ) {
    from.on('data', (chunk: Buffer) => {
      this.push({ kind: 'data', chunk, at: performance.now() + options.delayMs });
      this.queuedBytes += chunk.length;
      if (this.queuedBytes >= QUEUE_BYTES) from.pause();
    });
    from.once('end', () => this.push({ kind: 'end', at: performance.now() + options.delayMs }));
    from.once('close', (hadError) => {
      if (hadError || !from.readableEnded) this.push({ kind: 'reset', at: performance.now() + options.delayMs });
    });
    from.on('error', () => {});
  }

  private push(item: Item): void {
    if (this.done) return;
    this.queue.push(item);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer === undefined) this.timer = setTimeout(() => this.pump(), ms);
  }

  private pump(): void {
    this.timer = undefined;
    const now = performance.now();
    this.budget = Math.min(this.budget + ((now - this.lastRefill) * this.options.bytesPerSecond) / 1000, QUEUE_BYTES);
    this.lastRefill = now;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.at > now) {
        this.schedule(head.at - now);
        return;
      }
      if (head.kind !== 'data') {
        this.finish(head.kind);
        continue;
      }
      if (this.budget < 1) {
        this.schedule(TICK_MS);
        return;
      }
      const size = Math.min(head.chunk.length, Math.floor(this.budget));
      this.budget -= size;
      this.queuedBytes -= size;
      if (!this.to.destroyed) this.to.write(head.chunk.subarray(0, size));
      if (size === head.chunk.length) this.queue.shift();
      else head.chunk = head.chunk.subarray(size);
      if (this.queuedBytes < QUEUE_BYTES / 2 && this.from.isPaused()) this.from.resume();
    }
  }

  /** A FIN does not end the direction: a reset may still follow it, as it does from a server that closed too early. */
  private finish(kind: 'end' | 'reset'): void {
    this.queue.shift();
    if (kind === 'end') {
      if (!this.to.destroyed) this.to.end();
      return;
    }
    this.done = true;
    this.queue.length = 0;
    if (!this.to.destroyed) this.to.resetAndDestroy();
  }
}

/**
 * A TCP proxy on 127.0.0.1 that makes loopback behave like a slow network between a client and a
 * server: latency and a throughput limit in each direction, FIN and reset passed on in order.
 */
export class SlowLink {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number, options: SlowLinkOptions): Promise<SlowLink> {
    const server = createServer({ allowHalfOpen: true, noDelay: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('the slow link has no port');
    const link = new SlowLink(server, address.port);
    server.on('connection', (client) => link.carry(client, targetPort, options));
    return link;
  }

  private carry(client: Socket, targetPort: number, options: SlowLinkOptions): void {
    const upstream = connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true, noDelay: true });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    }
    new Direction(client, upstream, options);
    new Direction(upstream, client, options);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
