import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { GatewayError } from '../errors.js';

/** Node's own test for a 100-continue expectation, which it meets itself. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** What HTTP/1.1 requires of a request that Node would otherwise answer itself, with an empty body. */
function protocolError(request: FastifyRequest): GatewayError | undefined {
  if (request.raw.httpVersion !== '1.1') return undefined;
  if (request.headers.host === undefined) return GatewayError.badRequest({ request: 'must have a Host header' });
  const { expect } = request.headers;
  if (expect !== undefined && !CONTINUE.test(expect)) return GatewayError.of('EXPECTATION_FAILED');
  return undefined;
}

/**
 * Answers an HTTP/1.1 request without a Host header (400, errors.request) and one that expects anything but
 * 100-continue (417) in the gateway's error body, through the error handler as any other refusal. Node
 * answers both itself, with no body, unless told not to: the server is created with requireHostHeader off
 * (http-server-options.ts), and an expectation it does not meet ('checkExpectation') is handed on as a
 * request.
 */
export const protocolChecks = fp(
  async (app) => {
    app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
    app.addHook('onRequest', (request, _reply, done) => done(protocolError(request)));
  },
  { name: 'protocol-checks' },
);
