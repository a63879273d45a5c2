// node:http(s) rather than fetch: agents of our own (keep-alive, and separate pools for local buyers
// and the others), a lookup hook that checks the address a name resolves to when the connection is
// made, the declared Content-Length checked before reading, and `complete` telling a cut-off body from
// a whole one. Nothing here logs: URLs and bodies carry keys and PII.
import { lookup as dnsLookup } from 'node:dns';
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import { checkDestination, type DestinationRefusal, isPublicAddress } from './destination.js';
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

// Idle sockets are closed after 4 s, below the 5 s keep-alive of Node servers and the minute of common
// proxies, so a reused socket is seldom one the buyer is closing at that moment; LIFO lets the spare
// ones age out.
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' } as const;
const AGENTS = {
  local: { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) },
  remote: new https.Agent({ ...AGENT_OPTIONS, lookup: publicOnlyLookup }),
};

/**
 * One HTTP exchange with a buyer. Never throws and never follows redirects (a 3xx is a reply like any
 * other). A connection given up on (timeout, too large, abort) is destroyed, never reused.
 */
export async function sendToBuyer(request: BuyerRequest, options: TransportOptions): Promise<TransportResult> {
  const started = performance.now();
  const outcome = await exchange(request, options);
  return { ...outcome, latencyMs: Math.round(performance.now() - started) };
}

/** Where a request goes, as node:http takes it: parsing the URL anew was a good part of a call's cost. */
interface Target {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: string | undefined;
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
  const target: TargetOrRefusal =
    'refused' in destination
      ? destination
      : {
          protocol: destination.url.protocol as Target['protocol'],
          // node:http wants an IPv6 literal without its brackets.
          hostname: destination.url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: destination.url.port || undefined,
          path: `${destination.url.pathname}${destination.url.search}`,
        };
  if (configured) targets.set(url, target);
  return target;
}

function exchange(request: BuyerRequest, options: TransportOptions): Promise<Outcome> {
  const target = targetOf(request.url, options.local, request.body !== undefined);
  if ('refused' in target) return Promise.resolve({ kind: 'failed', error: target.refused });
  if (options.signal?.aborted) return Promise.resolve({ kind: 'timeout' });
  const maxBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;

  return new Promise((resolve) => {
    let outgoing: ClientRequest | undefined;
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      if (outcome.kind !== 'reply') outgoing?.destroy();
      resolve(outcome);
    };
    const abort = () => settle({ kind: 'timeout' });
    const timer = setTimeout(abort, options.timeoutMs);
    options.signal?.addEventListener('abort', abort, { once: true });

    const readReply = (reply: IncomingMessage) => {
      if (Number(reply.headers['content-length']) > maxBytes) return settle({ kind: 'failed', error: 'too_large' });
      const chunks: Buffer[] = [];
      let size = 0;
      reply.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return settle({ kind: 'failed', error: 'too_large' });
        chunks.push(chunk);
      });
      reply.on('error', (error) => settle({ kind: 'failed', error: failureOf(error) }));
      reply.on('close', () => {
        if (!reply.complete) return settle({ kind: 'failed', error: 'reset' });
        // A reply mostly comes in one chunk: decoded as it is, not copied first.
        const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
        settle({ kind: 'reply', status: reply.statusCode ?? 0, contentType: reply.headers['content-type'], body });
      });
    };

    try {
      const client = target.protocol === 'https:' ? https : http;
      outgoing = client.request({
        ...target,
        method: request.method,
        // A GET has no body, and then no Content-Length: some servers refuse a GET that declares one.
        headers:
          request.body === undefined
            ? request.headers
            : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        agent: options.local ? AGENTS.local[target.protocol] : AGENTS.remote,
      });
    } catch {
      // Invalid header names or values (the operator's configuration) throw before anything is sent.
      return settle({ kind: 'failed', error: 'other' });
    }
    outgoing.on('response', readReply);
    outgoing.on('error', (error) => settle({ kind: 'failed', error: failureOf(error) }));
    outgoing.end(request.body);
  });
}

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$)/;

function failureOf(error: NodeJS.ErrnoException): TransportFailure {
  const code = error.code ?? '';
  if (code === NOT_PUBLIC) return 'not_allowed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'reset';
  return TLS_ERROR.test(code) ? 'tls' : 'other';
}
