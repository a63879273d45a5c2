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
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => (this.received = Buffer.concat([this.received, chunk])));
    // A write after the server closed may fail with EPIPE or ECONNRESET: that is the point of these tests.
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => {
      const closed = (): void => {
        this.closedAt ??= performance.now();
        resolve();
      };
      socket.once('end', closed);
      socket.once('close', closed);
    });
  }

  static async open(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  get isClosed(): boolean {
    return this.closedAt !== undefined;
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

  write(data: string): void {
    if (this.isClosed || this.socket.destroyed) return;
    this.socket.write(data);
    this.bytesSent += Buffer.byteLength(data);
  }

  /**
   * Sends `data` one byte every `intervalMs`, stopping early when the server closes the connection.
   * Resolves with whether every byte was sent before the server closed it.
   */
  async trickle(data: string, intervalMs: number): Promise<boolean> {
    for (const byte of data) {
      if (this.isClosed) return false;
      this.write(byte);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, intervalMs)), this.closed]);
    }
    return !this.isClosed;
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
