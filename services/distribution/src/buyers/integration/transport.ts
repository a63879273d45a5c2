// A client of our own on node:net and node:tls (buyer-connections.ts, http-reply-reader.ts) rather than
// node:http or fetch: keep-alive pools of our own (local buyers apart from the others), a lookup hook that
// checks the address a name resolves to when the connection is made, the declared Content-Length checked
// before reading, a cut-off body told from a whole one, and a fraction of node:http's cost per call, which
// a tree of a hundred buyers pays a hundred times a lead. Nothing here logs: URLs and bodies carry keys
// and PII.
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import { type BuyerConnection, ConnectionPool, type ConnectionUser, type Origin } from './buyer-connections.js';
import { checkDestination, type DestinationRefusal, isPublicAddress } from './destination.js';
import { HttpReplyReader, type ReadProgress, type ReplyProblem } from './http-reply-reader.js';
import { InvalidHeaderError, requestBytes } from './http-request-bytes.js';
import type { BuyerRequest } from './request-builder.js';

export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024;

export type TransportFailure =
  | 'connection_refused'
  /** The connection closed before the whole reply arrived (reset, or a body shorter than declared). */
  | 'reset'
  | 'tls'
  /** The reply is larger than maxReplyBytes; it was cut off and is not parsed. */
  | 'too_large'
  | 'invalid_url'
  /** http:// or a non-public address for a buyer not marked local, or credentials in the URL. */
  | 'not_allowed'
  | 'other';

type Outcome =
  | { kind: 'reply'; status: number; contentType?: string; body: string }
  /** No whole reply within timeoutMs, or the signal aborted the call. */
  | { kind: 'timeout' }
  | { kind: 'failed'; error: TransportFailure };

export type TransportResult = Outcome & { latencyMs: number };

export interface TransportOptions {
  /** For the whole exchange: connection, request and the complete reply. */
  timeoutMs: number;
  maxReplyBytes?: number;
  /** The buyer is marked local: http:// and private addresses allowed. */
  local: boolean;
  signal?: AbortSignal;
  /**
   * The request takes nothing from the buyer (a ping, a status look-up): when a kept-alive connection
   * turns out closed before any byte of the reply came (the buyer closed it as the request went out),
   * the request is sent once more, on a new connection, within the same time. A post is never sent
   * twice: the buyer may have taken the first.
   */
  resendOnClosedConnection?: boolean;
}

const NOT_PUBLIC = 'ERR_LEADFLOW_NOT_PUBLIC';

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, options, (error, address, family) => {
    if (error) return callback(error, address, family);
    const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
    if (addresses.every(isPublicAddress)) return callback(null, address, family);
    callback(Object.assign(new Error('destination is not a public address'), { code: NOT_PUBLIC }), address, family);
  });
};

const POOLS = { local: new ConnectionPool(), remote: new ConnectionPool(publicOnlyLookup) };

/**
 * One HTTP exchange with a buyer. Never throws and never follows redirects (a 3xx is a reply like any
 * other). A connection given up on (timeout, too large, abort, a malformed reply) is destroyed, never
 * reused.
 */
export async function sendToBuyer(request: BuyerRequest, options: TransportOptions): Promise<TransportResult> {
  const started = performance.now();
  const outcome = await exchange(request, options);
  return { ...outcome, latencyMs: Math.round(performance.now() - started) };
}

/** Where a request goes: parsing the URL anew was a good part of a call's cost. */
interface Target {
  origin: Origin;
  /** The Host header: the URL's host, with its port unless it is the scheme's default. */
  host: string;
  path: string;
}

type TargetOrRefusal = Target | { refused: DestinationRefusal };

/** The buyers' configured URLs, local and not: a tree's worth, whatever the number of leads. */
const TARGETS = {
  local: new TtlCache<string, TargetOrRefusal>(Number.POSITIVE_INFINITY, 1_000),
  remote: new TtlCache<string, TargetOrRefusal>(Number.POSITIVE_INFINITY, 1_000),
};

/**
 * The checked destination of a URL. `configured`: the URL is an exchange's own, the same for every lead,
 * and is kept; a GET's URL carries the lead's values in its query and is never kept.
 */
function targetOf(url: string, local: boolean, configured: boolean): TargetOrRefusal {
  const targets = local ? TARGETS.local : TARGETS.remote;
  const known = configured ? targets.get(url) : undefined;
  if (known) return known;
  const destination = checkDestination(url, local);
  let target: TargetOrRefusal;
  if ('refused' in destination) target = destination;
  else {
    const { protocol, hostname, port, host, pathname, search } = destination.url;
    const secure = protocol === 'https:';
    const portNumber = port === '' ? (secure ? 443 : 80) : Number(port);
    target = {
      // The connection wants an IPv6 literal without its brackets.
      origin: { key: `${protocol}//${host}`, secure, host: hostname.replace(/^\[(.*)\]$/, '$1'), port: portNumber },
      host,
      path: `${pathname}${search}`,
    };
  }
  if (configured) targets.set(url, target);
  return target;
}

async function exchange(request: BuyerRequest, options: TransportOptions): Promise<Outcome> {
  const target = targetOf(request.url, options.local, request.body !== undefined);
  if ('refused' in target) return { kind: 'failed', error: target.refused };
  if (options.signal?.aborted) return { kind: 'timeout' };
  let bytes: Buffer;
  try {
    bytes = requestBytes(request, target.path, target.host);
  } catch (error) {
    // An invalid header name or value (the operator's configuration): nothing is sent.
    if (error instanceof InvalidHeaderError) return { kind: 'failed', error: 'other' };
    throw error;
  }
  const pool = options.local ? POOLS.local : POOLS.remote;
  const started = performance.now();
  const first = await call(pool.take(target.origin), bytes, request, options);
  if (!first.closedUnanswered || !options.resendOnClosedConnection) return first.outcome;
  const timeoutMs = options.timeoutMs - (performance.now() - started);
  if (timeoutMs <= 0) return { kind: 'timeout' };
  return (await call(pool.take(target.origin, true), bytes, request, { ...options, timeoutMs })).outcome;
}

interface CallEnd {
  outcome: Outcome;
  /** A kept connection closed before any byte of the reply came. */
  closedUnanswered: boolean;
}

function call(connection: BuyerConnection, bytes: Buffer, request: BuyerRequest, options: TransportOptions) {
  return new Promise<CallEnd>((resolve) => {
    const wait = new ReplyWait(connection, request.method === 'HEAD', options, resolve);
    connection.use(wait);
    // Written at once: on a connection still opening it waits in the socket, and goes nowhere if the
    // call is given up on before the connection is up.
    connection.socket.write(bytes);
  });
}

const FAILURES: Record<ReplyProblem, TransportFailure> = {
  too_large: 'too_large',
  cut_off: 'reset',
  malformed: 'other',
};

/** One call on a connection: reads the reply, and settles once, on the reply, a failure or the time. */
class ReplyWait implements ConnectionUser {
  private readonly reader: HttpReplyReader;
  private readonly timer: NodeJS.Timeout;
  private settled = false;
  private answered = false;
  private readonly abort = () => this.fail({ kind: 'timeout' });

  constructor(
    private readonly connection: BuyerConnection,
    headRequest: boolean,
    private readonly options: TransportOptions,
    private readonly resolve: (end: CallEnd) => void,
  ) {
    this.reader = new HttpReplyReader(options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES, headRequest);
    this.timer = setTimeout(this.abort, options.timeoutMs);
    options.signal?.addEventListener('abort', this.abort, { once: true });
  }

  onData(chunk: Buffer): void {
    this.answered = true;
    this.progress(this.reader.push(chunk));
  }

  onEnd(): void {
    this.progress(this.reader.end());
  }

  onError(error: NodeJS.ErrnoException): void {
    this.fail({ kind: 'failed', error: failureOf(error) });
  }

  private progress(progress: ReadProgress): void {
    if (!progress.done) return;
    if ('problem' in progress) {
      this.fail({ kind: 'failed', error: FAILURES[progress.problem] });
      return;
    }
    const { reply } = progress;
    if (!this.finish()) return;
    if (reply.reusable) this.connection.release();
    else this.connection.destroy();
    this.resolve({
      outcome: {
        kind: 'reply',
        status: reply.status,
        contentType: reply.contentType,
        body: reply.body.toString('utf8'),
      },
      closedUnanswered: false,
    });
  }

  private fail(outcome: Outcome): void {
    if (!this.finish()) return;
    this.connection.destroy();
    const closed = outcome.kind === 'failed' && outcome.error === 'reset';
    this.resolve({ outcome, closedUnanswered: closed && !this.answered && this.connection.kept });
  }

  /** False when the call has already settled. */
  private finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener('abort', this.abort);
    return true;
  }
}

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$)/;

function failureOf(error: NodeJS.ErrnoException): TransportFailure {
  const code = error.code ?? '';
  if (code === NOT_PUBLIC) return 'not_allowed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'reset';
  return TLS_ERROR.test(code) ? 'tls' : 'other';
}
