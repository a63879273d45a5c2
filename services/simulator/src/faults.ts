import type { ServerResponse } from 'node:http';
import type { Random } from '@leadflow/core/seeded-random';
import { FAULT_KINDS, type FaultKind, type FaultRates } from './config.js';
import type { RenderedReply } from './replies.js';

const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>Scheduled maintenance</title></head>' +
  '<body><h1>We will be back soon</h1><p>Our application service is undergoing maintenance.</p></body></html>';
const GARBAGE_BYTES = 64;
const RESET_PAUSE_MS = 5;

/** One draw decides whether this request fails and how. */
export function pickFault(rates: FaultRates, random: Random): FaultKind | undefined {
  const draw = random();
  let cumulative = 0;
  for (const kind of FAULT_KINDS) {
    cumulative += rates[kind];
    if (draw < cumulative) return kind;
  }
  return undefined;
}

/**
 * Fails the request the way `kind` says. `reply` is a plausible success in the
 * endpoint's format: reset and truncated cut it half-way, so that a client
 * trusting a partial body would believe it sold the lead.
 */
export function sendFault(kind: FaultKind, response: ServerResponse, reply: RenderedReply, random: Random): void {
  const half = () => Buffer.from(reply.body).subarray(0, Math.floor(Buffer.byteLength(reply.body) / 2));
  const promiseWholeReply = () =>
    response.writeHead(200, { 'content-type': reply.contentType, 'content-length': Buffer.byteLength(reply.body) });
  switch (kind) {
    case 'status500':
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"status":"error","message":"internal server error"}');
      return;
    case 'status503':
      response.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '30' });
      response.end('Service Unavailable');
      return;
    case 'hang':
      return;
    case 'reset': {
      const socket = response.socket;
      promiseWholeReply();
      // Reset a moment after the half reply left: reset at once, loopback clients often read it as a clean end.
      response.write(half(), () => setTimeout(() => socket?.resetAndDestroy(), RESET_PAUSE_MS));
      return;
    }
    case 'truncated':
      promiseWholeReply();
      response.write(half(), () => response.destroy());
      return;
    case 'html':
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(HTML_PAGE);
      return;
    case 'garbage': {
      const bytes = Buffer.alloc(GARBAGE_BYTES);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(random() * 256);
      response.writeHead(200, { 'content-type': reply.contentType });
      response.end(bytes);
      return;
    }
  }
}
