// Keep-alive connections to buyers, opened with node:net and node:tls: a buyer call writes its request and
// reads the reply on one of them with no per-call streams, events or request objects, which were most of
// what a call cost on node:http. One set of listeners per connection hands the bytes to the call in
// progress.
import net, { type LookupFunction, type Socket } from 'node:net';
import tls from 'node:tls';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';

/** Where a connection goes; connections are shared by calls to the same origin. */
export interface Origin {
  /** `https://host:port`, as the pool's key. */
  key: string;
  secure: boolean;
  /** A name or an IP literal, IPv6 without brackets. */
  host: string;
  port: number;
}

/** The call a connection's bytes and end go to while it runs. */
export interface ConnectionUser {
  onData(chunk: Buffer): void;
  /** The connection ended or closed; once it has ended, nothing more comes. */
  onEnd(): void;
  onError(error: NodeJS.ErrnoException): void;
}

// Idle connections are closed after 4 s, below the 5 s keep-alive of Node servers and the minute of common
// proxies, so a reused one is seldom one the buyer is closing at that moment; the most recently used is
// taken first (LIFO), so that the spare ones age out.
const IDLE_TIMEOUT_MS = 4_000;
const MAX_IDLE_PER_ORIGIN = 256;
/** TLS sessions kept for resumption: a tree's worth of buyers. */
const MAX_TLS_SESSIONS = 1_000;

export class BuyerConnection {
  private user: ConnectionUser | undefined;
  private calls = 0;

  constructor(
    readonly socket: Socket,
    readonly origin: Origin,
    private readonly pool: ConnectionPool,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      // Bytes on an idle connection answer nothing that was asked: it cannot be trusted with a call.
      if (this.user) this.user.onData(chunk);
      else this.destroy();
    });
    socket.on('end', () => this.user?.onEnd());
    socket.on('error', (error) => this.user?.onError(error));
    socket.on('close', () => {
      this.pool.forget(this);
      this.user?.onEnd();
    });
    socket.on('timeout', () => {
      if (!this.user) this.destroy();
    });
  }

  /** Gives the connection to a call: its bytes go to `user` until released or destroyed. */
  use(user: ConnectionUser): void {
    this.user = user;
    this.calls++;
    this.socket.setTimeout(0);
  }

  /** The call in progress is not the connection's first: the buyer may have closed it while it was idle. */
  get kept(): boolean {
    return this.calls > 1;
  }

  /** The call is done and the connection may carry another. */
  release(): void {
    this.user = undefined;
    // A buyer that answered before the whole request was sent: the rest of it would go ahead of the next
    // call's request, so the connection carries no other.
    if (this.socket.writableLength > 0) this.socket.destroy();
    if (this.socket.destroyed) return;
    this.socket.setTimeout(IDLE_TIMEOUT_MS);
    this.pool.keep(this);
  }

  destroy(): void {
    this.user = undefined;
    this.socket.destroy();
  }
}

export class ConnectionPool {
  private readonly idle = new Map<string, BuyerConnection[]>();
  private readonly tlsSessions = new TtlCache<string, Buffer>(Number.POSITIVE_INFINITY, MAX_TLS_SESSIONS);

  /** `lookup` checks the addresses a name resolves to when a connection is opened. */
  constructor(private readonly lookup?: LookupFunction) {}

  /** An idle connection to the origin, the most recently used first, or a new one (always, when `fresh`). */
  take(origin: Origin, fresh = false): BuyerConnection {
    const spare = fresh ? undefined : this.idle.get(origin.key)?.pop();
    return spare ?? new BuyerConnection(this.open(origin), origin, this);
  }

  keep(connection: BuyerConnection): void {
    const spares = this.idle.get(connection.origin.key);
    if (!spares) this.idle.set(connection.origin.key, [connection]);
    else if (spares.length < MAX_IDLE_PER_ORIGIN) spares.push(connection);
    else connection.destroy();
  }

  forget(connection: BuyerConnection): void {
    const spares = this.idle.get(connection.origin.key);
    const index = spares?.indexOf(connection) ?? -1;
    if (index === -1) return;
    spares!.splice(index, 1);
    if (spares!.length === 0) this.idle.delete(connection.origin.key);
  }

  private open(origin: Origin): Socket {
    const address = { host: origin.host, port: origin.port, ...(this.lookup ? { lookup: this.lookup } : {}) };
    if (!origin.secure) return net.connect(address);
    const socket = tls.connect({
      ...address,
      // SNI takes a name, never an IP literal.
      ...(net.isIP(origin.host) ? {} : { servername: origin.host }),
      ALPNProtocols: ['http/1.1'],
      session: this.tlsSessions.get(origin.key),
    });
    socket.on('session', (session: Buffer) => this.tlsSessions.set(origin.key, session));
    return socket;
  }
}
