import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type LingerLimits, lingeringClose } from '../lingering-close.js';

export interface ConnectionCloseOptions {
  /** How a connection closed before its request was read to the end keeps reading it first. */
  linger: LingerLimits;
}

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
 * Node ends the connection of a `Connection: close` answer with the socket's destroySoon() once the
 * answer is written (end, then destroy, whatever the client is still sending); this socket's is
 * replaced so that a request still arriving then is read to its end, within limits, before the close.
 */
function lingerOnceAnswered(request: IncomingMessage, limits: LingerLimits): void {
  const { socket } = request;
  socket.destroySoon = () => {
    if (request.complete || socket.readableEnded) Socket.prototype.destroySoon.call(socket);
    else lingeringClose(socket, limits);
  };
}

/**
 * Decides which answers end their connection (`Connection: close`), and has those whose request is not
 * all in yet close lingering (see lingeringClose), so that the client reads its answer.
 */
export const connectionClose = fp<ConnectionCloseOptions>(
  async (app, options) => {
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      if (mustClose(request, reply, closing)) {
        reply.header('connection', 'close');
        lingerOnceAnswered(request.raw, options.linger);
      }
      done(null, payload);
    });
  },
  { name: 'connection-close' },
);
