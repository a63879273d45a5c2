import type { ServerOptions } from 'node:http';
import type { HttpTimeouts } from '@leadflow/service-kit/config';
import { LINGER_MAX_BYTES, type LingerLimits } from './lingering-close.js';

/** How often Node looks for requests past their headers or request timeout; at most this late a slow client is cut. */
export function connectionsCheckingIntervalMs(timeouts: HttpTimeouts): number {
  return Math.min(1000, Math.max(25, Math.floor(timeouts.headersMs / 4)));
}

/**
 * Node's server options, mostly its limits for slow clients. Node only checks the headers and request timeouts every
 * `connectionsCheckingInterval` (30 s by default, which would double a short limit), and checks them
 * against each other only when the server is created: so all three go to createServer together, and
 * requestTimeout also as Fastify's own option, which it sets again afterwards. A client past a limit gets
 * Node's bare 408 and the connection is closed. connectionTimeout (socket inactivity) stays off: it would
 * also cut a connection waiting for a lead's answer, which the intake deadline bounds.
 */
export function httpServerOptions(timeouts: HttpTimeouts): {
  http: ServerOptions;
  requestTimeout: number;
  keepAliveTimeout: number;
} {
  return {
    http: {
      // The gateway answers a request without Host itself, in its error body (plugins/protocol-checks.ts).
      requireHostHeader: false,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs(timeouts),
    },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
  };
}

/**
 * How a connection closed before its request was all in keeps reading it: it may sit idle as long as a
 * keep-alive connection between requests (nginx's lingering_timeout is 5 s too); the request timeout
 * bounds the whole, as for any request.
 */
export function lingerLimits(timeouts: HttpTimeouts): LingerLimits {
  return { idleMs: timeouts.keepAliveMs, maxBytes: LINGER_MAX_BYTES };
}
