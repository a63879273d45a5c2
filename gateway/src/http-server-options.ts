import type { ServerOptions } from 'node:http';
import type { HttpTimeouts } from '@leadflow/service-kit/config';

/** How often Node looks for requests past their headers or request timeout; at most this late a slow client is cut. */
export function connectionsCheckingIntervalMs(timeouts: HttpTimeouts): number {
  return Math.min(1000, Math.max(25, Math.floor(timeouts.headersMs / 4)));
}

/**
 * Node's server limits for slow clients. Node only checks the headers and request timeouts every
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
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs(timeouts),
    },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
  };
}
