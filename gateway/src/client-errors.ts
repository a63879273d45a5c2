import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody, GatewayError } from './errors.js';

/** How a request Node could not parse as HTTP is answered, in the gateway's error body. */
function clientErrorOf(error: NodeJS.ErrnoException): GatewayError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return GatewayError.of('REQUEST_TIMEOUT');
  if (error.code === 'HPE_HEADER_OVERFLOW') return GatewayError.of('HEADERS_TOO_LARGE');
  return GatewayError.badRequest({ request: 'is not valid HTTP/1.1' });
}

/**
 * Fastify's clientErrorHandler: a request that never became one (malformed request line or headers,
 * headers too large, a client past the headers or request timeout) is answered in the same error body as
 * every other, then the connection is closed, as Node does. A reset connection gets nothing.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const gatewayError = clientErrorOf(error);
  // Mostly a network's or a load balancer's doing: logged at trace level only.
  this.log.trace({ code: error.code }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(gatewayError));
    const { statusCode } = gatewayError;
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
