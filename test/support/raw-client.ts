import { connect, type Socket } from 'node:net';

/**
 * An HTTP/1.1 client on a bare TCP socket, for what fetch cannot do: send a request a byte at a
 * time, keep writing after the answer, and see exactly when the server closes the connection.
 */
export class RawClient {
  private readonly socket: Socket;
  private received = Buffer.alloc(0);
  private readonly opened = performance.now();
  /** performance.now() when the server ended or reset the connection. */
  closedAt: number | undefined;
  /** Bytes written before the connection was found closed. */
  bytesSent = 0;
  /** The server ended its side (end of stream), or the connection is gone. */
  readonly closed: Promise<void>;
  /** The connection is gone both ways: closed by both sides, or reset. */
  readonly gone: Promise<void>;
  /** The error that reset the connection (ECONNRESET, EPIPE), if one did. */
  resetBy: string | undefined;
  private isGoneFlag = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => (this.received = Buffer.concat([this.received, chunk])));
    // A write after the server closed may fail with EPIPE or ECONNRESET: that is the point of these tests.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.resetBy ??= error.code ?? error.message;
    });
    this.closed = new Promise((resolve) => {
      const closed = (): void => {
        this.closedAt ??= performance.now();
        resolve();
      };
      socket.once('end', closed);
      socket.once('close', closed);
    });
    this.gone = new Promise((resolve) => {
      socket.once('close', () => {
        this.isGoneFlag = true;
        resolve();
      });
    });
  }

  static async open(port: number): Promise<RawClient> {
    // Half-open allowed: a client may go on sending after the server's end of stream, as curl and Python do.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  get isClosed(): boolean {
    return this.closedAt !== undefined;
  }

  get isGone(): boolean {
    return this.isGoneFlag;
  }

  /** Milliseconds from connecting until the server closed the connection (or until now). */
  get heldMs(): number {
    return (this.closedAt ?? performance.now()) - this.opened;
  }

  get text(): string {
    return this.received.toString('latin1');
  }

  /** The answers received in full so far, in order (every answer of the gateway has a Content-Length). */
  get answers(): RawAnswer[] {
    const answers: RawAnswer[] = [];
    let rest = this.text;
    for (;;) {
      const headEnd = rest.indexOf('\r\n\r\n');
      if (headEnd < 0) return answers;
      const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const bodyEnd = headEnd + 4 + Number(headers['content-length'] ?? 0);
      if (rest.length < bodyEnd) return answers;
      answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(headEnd + 4, bodyEnd) });
      rest = rest.slice(bodyEnd);
    }
  }

  get statuses(): number[] {
    return this.answers.map((answer) => answer.status);
  }

  /** The headers of the n-th answer, names in lower case. */
  headers(index = 0): Record<string, string> {
    return this.answers[index]?.headers ?? {};
  }

  /** Writes `data`, even past the server's end of stream, unless the connection is gone. */
  write(data: string): void {
    if (this.isGone || this.socket.destroyed) return;
    this.socket.write(data);
    this.bytesSent += Buffer.byteLength(data);
  }

  /**
   * Writes `bytes` bytes as fast as the connection takes them, going on past the server's end of stream
   * (a server closing lingering still reads them). Resolves with whether all of them were written
   * before the connection was gone.
   */
  async send(bytes: number): Promise<boolean> {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = bytes;
    while (left > 0) {
      if (this.isGone || this.socket.destroyed) return false;
      const piece = left < chunk.length ? chunk.subarray(0, left) : chunk;
      const written = await new Promise<boolean>((resolve) => this.socket.write(piece, (error) => resolve(!error)));
      if (!written) return false;
      this.bytesSent += piece.length;
      left -= piece.length;
    }
    return !this.isGone;
  }

  /** Ends the client's side of the connection (end of stream), as a client done sending does. */
  end(): void {
    this.socket.end();
  }

  /**
   * Sends `data` one byte every `intervalMs`, stopping early when the server closes the connection
   * (`until: 'closed'`: ends its side or resets it) or once the connection is gone both ways
   * (`until: 'gone'`: a server closing lingering ends its side at once and still reads). Resolves with
   * whether every byte was sent before that.
   */
  async trickle(data: string, intervalMs: number, until: 'closed' | 'gone' = 'closed'): Promise<boolean> {
    const stopped = (): boolean => (until === 'closed' ? this.isClosed : this.isGone || this.socket.destroyed);
    for (const byte of data) {
      if (stopped()) return false;
      this.socket.write(byte);
      this.bytesSent += 1;
      await Promise.race([
        new Promise((resolve) => setTimeout(resolve, intervalMs)),
        until === 'closed' ? this.closed : this.gone,
      ]);
    }
    return !stopped();
  }

  /** Resolves once `predicate` holds on what was received, or the connection closed. */
  async waitFor(predicate: (client: RawClient) => boolean): Promise<void> {
    while (!predicate(this) && !this.isClosed) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export interface RawAnswer {
  status: number;
  /** Names in lower case. */
  headers: Record<string, string>;
  body: string;
}

export function requestHead(method: string, path: string, headers: Record<string, string | number> = {}): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}
