import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Answers that refuse the client: it gets no further request on this connection without a new handshake. */
const REFUSALS = new Set([401, 413, 429]);

function mustClose(request: FastifyRequest, reply: FastifyReply, closing: boolean): boolean {
  // While the gateway closes, a keep-alive connection would otherwise hold the close up until its idle timeout.
  if (closing) return true;
  if (REFUSALS.has(reply.statusCode)) return true;
  // Node drains an unread body to reuse the connection, at whatever pace the client sends it: a request
  // answered before its body was in (a bad key, a wrong type) must not keep its connection that way.
  return !request.raw.complete;
}

/**
 * Decides which answers end their connection (`Connection: close`; Node closes the socket once the
 * answer is written, without reading what is left of the request).
 */
export const connectionClose = fp(
  async (app) => {
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      if (mustClose(request, reply, closing)) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'connection-close' },
);
