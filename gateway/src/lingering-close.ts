import { Socket } from 'node:net';

/** How much more of a refused request the gateway reads and discards: 256 times the body limit. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

export interface LingerLimits {
  /** Closes after this long without a byte from the client. */
  idleMs: number;
  /** Closes once the client has sent this many more bytes. */
  maxBytes: number;
}

/**
 * Closes a connection whose client may still be sending its request, as nginx's lingering close does:
 * ends the gateway's side (the client reads the answer, then end of stream), reads and throws away what
 * the client still sends, and closes once the client closes its side, or after `idleMs` without a byte,
 * or past `maxBytes`. Closing at once would leave the client's bytes unread, and the kernel answers
 * those with a reset, which fails the client's send (EPIPE) or wipes the answer from its receive
 * buffer before it is read. What is read is never kept; the server's request timeout, which counts
 * from the request's first byte, still bounds the whole.
 */
export function lingeringClose(socket: Socket, limits: LingerLimits): void {
  // The rest is the refused request's: Node's HTTP parser must not see it (it would read a request sent
  // after it, and answer that on a connection that is closing), nor its end (an unfinished body, to it).
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  socket.end();
  const close = (): void => void socket.destroy();
  const idle = setTimeout(close, limits.idleMs);
  let discarded = 0;
  const discard = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) close();
    else idle.refresh();
  };
  // The client is done: close once the answer is out (net.Socket's own destroySoon).
  socket.once('end', () => Socket.prototype.destroySoon.call(socket));
  socket.once('close', () => clearTimeout(idle));
  discardOnceReading(socket, discard);
  socket.resume();
}

/**
 * Takes the socket from Node's HTTP parser, its bytes going to `discard`, once it reads. A request whose body
 * nobody read has paused its socket (the request's buffer was full), and a socket the parser reads is started
 * again only by the server's own 'resume' listener: once a 'data' listener has taken it from the parser,
 * resume() no longer restarts it (the stream still counts on the parser's read), and the client's bytes stay
 * unread until the idle timer closes the connection. So a paused socket is taken over in the 'resume' event,
 * just after that listener has started it, before a byte is read; and only once it did (the server holds a
 * socket paused while earlier answers wait to be written, and resumes it when they are out).
 */
function discardOnceReading(socket: Socket, discard: (chunk: Buffer) => void): void {
  if (socket.isPaused()) socket.once('resume', () => discardOnceReading(socket, discard));
  else socket.on('data', discard);
}
