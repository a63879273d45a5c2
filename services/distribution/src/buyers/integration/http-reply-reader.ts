import { isHeaderName } from './http-request-bytes.js';

/**
 * Reads one HTTP/1.x response from the bytes of a connection, as they come: the status, the Content-Type
 * and the body, framed by Content-Length, chunked transfer coding or the connection's end. Strict where
 * a lenient reading could take a reply for another: a malformed status line or header, a Content-Length
 * that disagrees with itself or comes with Transfer-Encoding, a chunk size that is not hexadecimal.
 * Interim 1xx responses are skipped.
 */

/** As node:http: a status line and headers (or a chunked body's trailers) larger than this are refused. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** A chunk-size line is a few hex digits; extensions beyond this are refused. */
const MAX_CHUNK_LINE_BYTES = 1024;

export type ReplyProblem =
  /** Not a well-formed HTTP/1.x response. */
  | 'malformed'
  /** The body is larger than the cap. */
  | 'too_large'
  /** The connection ended before the whole response came. */
  | 'cut_off';

export interface ReadReply {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  /** The connection may carry another request: HTTP/1.1, no `Connection: close`, nothing after the reply. */
  reusable: boolean;
}

export type ReadProgress = { done: false } | { done: true; reply: ReadReply } | { done: true; problem: ReplyProblem };

const MORE: ReadProgress = { done: false };
const STATUS_LINE = /^HTTP\/1\.([01]) ([0-9]{3})(?:[ \t][^\r\n]*)?$/;
const DIGITS = /^[0-9]+$/;
const HEX = /^[0-9A-Fa-f]{1,12}$/;

type BodyFraming = { kind: 'none' } | { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' };
type ChunkState = 'size' | 'data' | 'data-end' | 'trailers';

interface Head {
  status: number;
  contentType: string | undefined;
  framing: BodyFraming;
  keepAlive: boolean;
}

export class HttpReplyReader {
  private pending: Buffer | undefined;
  private head: Head | undefined;
  private readonly body: Buffer[] = [];
  private bodyBytes = 0;
  private chunkState: ChunkState = 'size';
  private chunkRemaining = 0;
  private trailerBytes = 0;

  constructor(
    private readonly maxBodyBytes: number,
    /** A reply to HEAD has no body, whatever its headers say. */
    private readonly headRequest: boolean,
  ) {}

  /** Takes the next bytes of the connection. */
  push(chunk: Buffer): ReadProgress {
    let bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (!this.head) {
      const end = headEnd(bytes);
      if (end === -1) {
        if (bytes.length > MAX_HEAD_BYTES) return { done: true, problem: 'malformed' };
        this.pending = bytes;
        return MORE;
      }
      if (end.headLength > MAX_HEAD_BYTES) return { done: true, problem: 'malformed' };
      const head = parseHead(bytes.toString('latin1', 0, end.headLength), this.headRequest);
      if (!head) return { done: true, problem: 'malformed' };
      bytes = bytes.subarray(end.bodyStart);
      // An interim response (100 Continue, 103 Early Hints) is followed by the real one.
      if (head.status >= 100 && head.status < 200) {
        if (head.status === 101) return { done: true, problem: 'malformed' };
        continue;
      }
      this.head = head;
      if (head.framing.kind === 'length' && head.framing.remaining > this.maxBodyBytes)
        return { done: true, problem: 'too_large' };
    }
    return this.readBody(bytes);
  }

  /** The connection has ended: the reply is whole only when its body runs to the end of the connection. */
  end(): ReadProgress {
    if (this.head?.framing.kind === 'close') return this.finished(false, false);
    return { done: true, problem: 'cut_off' };
  }

  private readBody(bytes: Buffer): ReadProgress {
    const head = this.head!;
    switch (head.framing.kind) {
      case 'none':
        return this.finished(head.keepAlive, bytes.length > 0);
      case 'close':
        return this.keep(bytes) ?? MORE;
      case 'length': {
        const framing = head.framing;
        const taken = bytes.subarray(0, framing.remaining);
        framing.remaining -= taken.length;
        const refused = this.keep(taken);
        if (refused) return refused;
        return framing.remaining === 0 ? this.finished(head.keepAlive, bytes.length > taken.length) : MORE;
      }
      case 'chunked':
        return this.readChunks(bytes);
    }
  }

  private readChunks(input: Buffer): ReadProgress {
    let bytes = input;
    while (bytes.length > 0) {
      if (this.chunkState === 'data') {
        const taken = bytes.subarray(0, this.chunkRemaining);
        this.chunkRemaining -= taken.length;
        bytes = bytes.subarray(taken.length);
        const refused = this.keep(taken);
        if (refused) return refused;
        if (this.chunkRemaining === 0) this.chunkState = 'data-end';
        continue;
      }
      const lineEnd = bytes.indexOf(10);
      if (lineEnd === -1) {
        if (bytes.length > MAX_CHUNK_LINE_BYTES) return { done: true, problem: 'malformed' };
        this.pending = bytes;
        return MORE;
      }
      const line = bytes.toString('latin1', 0, lineEnd).replace(/\r$/, '');
      bytes = bytes.subarray(lineEnd + 1);
      const progress = this.chunkLine(line, lineEnd + 1);
      if (progress === 'malformed') return { done: true, problem: 'malformed' };
      if (progress === 'last') return this.finished(this.head!.keepAlive, bytes.length > 0);
    }
    return MORE;
  }

  private chunkLine(line: string, lineBytes: number): 'malformed' | 'last' | 'next' {
    switch (this.chunkState) {
      case 'data-end':
        if (line !== '') return 'malformed';
        this.chunkState = 'size';
        return 'next';
      case 'size': {
        if (lineBytes > MAX_CHUNK_LINE_BYTES) return 'malformed';
        const size = line.split(';', 1)[0]!.trim();
        if (!HEX.test(size)) return 'malformed';
        this.chunkRemaining = Number.parseInt(size, 16);
        this.chunkState = this.chunkRemaining === 0 ? 'trailers' : 'data';
        return 'next';
      }
      case 'trailers':
        this.trailerBytes += lineBytes;
        if (this.trailerBytes > MAX_HEAD_BYTES) return 'malformed';
        return line === '' ? 'last' : 'next';
      case 'data':
        throw new Error('chunk data is not read as a line');
    }
  }

  /** Keeps body bytes; a refusal once they pass the cap. */
  private keep(bytes: Buffer): ReadProgress | undefined {
    if (bytes.length === 0) return undefined;
    this.bodyBytes += bytes.length;
    if (this.bodyBytes > this.maxBodyBytes) return { done: true, problem: 'too_large' };
    this.body.push(bytes);
    return undefined;
  }

  private finished(keepAlive: boolean, bytesAfter: boolean): ReadProgress {
    const head = this.head!;
    const body = this.body.length === 1 ? this.body[0]! : Buffer.concat(this.body);
    return {
      done: true,
      reply: { status: head.status, contentType: head.contentType, body, reusable: keepAlive && !bytesAfter },
    };
  }
}

/** Where the status line and headers end (the blank line, CRLF or a bare LF), and the body starts. */
function headEnd(bytes: Buffer): { headLength: number; bodyStart: number } | -1 {
  let from = 0;
  for (;;) {
    const lineFeed = bytes.indexOf(10, from);
    if (lineFeed === -1) return -1;
    const next = bytes[lineFeed + 1];
    if (next === 10) return { headLength: lineFeed, bodyStart: lineFeed + 2 };
    if (next === 13 && bytes[lineFeed + 2] === 10) return { headLength: lineFeed, bodyStart: lineFeed + 3 };
    if (next === undefined || (next === 13 && bytes.length === lineFeed + 2)) return -1;
    from = lineFeed + 1;
  }
}

/** The headers whose values the reader uses; every other header is checked for its name alone. */
type HeaderRead = 'content-type' | 'content-length' | 'transfer-encoding' | 'connection';
const HEADERS_READ_BY_LENGTH = new Map<number, HeaderRead>([
  [12, 'content-type'],
  [14, 'content-length'],
  [17, 'transfer-encoding'],
  [10, 'connection'],
]);

/** The header read by this name, whatever its case; undefined for any other. */
function headerRead(name: string): HeaderRead | undefined {
  const read = HEADERS_READ_BY_LENGTH.get(name.length);
  return read !== undefined && name.toLowerCase() === read ? read : undefined;
}

/** Line by line through the head without splitting it: a reply's head is parsed for every buyer call. */
function parseHead(text: string, headRequest: boolean): Head | undefined {
  let end = lineEndOf(text, 0);
  const statusLine = STATUS_LINE.exec(lineOf(text, 0, end));
  if (!statusLine) return undefined;
  const http11 = statusLine[1] === '1';
  const status = Number(statusLine[2]);
  let contentType: string | undefined;
  let contentLength: string | undefined;
  let transferEncoding: string | undefined;
  let connectionClose = false;
  while (end < text.length) {
    const start = end + 1;
    end = lineEndOf(text, start);
    const line = lineOf(text, start, end);
    const colon = line.indexOf(':');
    // No name, or a continuation line (obsolete folding): refused, as by node:http.
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    if (!isHeaderName(name)) return undefined;
    const read = headerRead(name);
    if (read === undefined) continue;
    const value = line.slice(colon + 1).trim();
    switch (read) {
      case 'content-type':
        contentType ??= value;
        break;
      case 'content-length':
        for (const length of value.split(',')) {
          const trimmed = length.trim();
          if (!DIGITS.test(trimmed) || (contentLength !== undefined && contentLength !== trimmed)) return undefined;
          contentLength = trimmed;
        }
        break;
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
      case 'connection':
        if (value.split(',').some((token) => token.trim().toLowerCase() === 'close')) connectionClose = true;
        break;
    }
  }
  if (transferEncoding !== undefined && contentLength !== undefined) return undefined;
  const keepAlive = http11 && !connectionClose;
  return { status, contentType, framing: framingOf(status, headRequest, contentLength, transferEncoding), keepAlive };
}

/** Where the line starting at `start` ends: its LF, or the end of the head. */
function lineEndOf(text: string, start: number): number {
  const lineFeed = text.indexOf('\n', start);
  return lineFeed === -1 ? text.length : lineFeed;
}

/** The line from `start` to `end`, without the CR before its LF. */
function lineOf(text: string, start: number, end: number): string {
  return text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
}

function framingOf(
  status: number,
  headRequest: boolean,
  contentLength: string | undefined,
  transferEncoding: string | undefined,
): BodyFraming {
  if (headRequest || status === 204 || status === 304 || status < 200) return { kind: 'none' };
  if (transferEncoding !== undefined) {
    const codings = transferEncoding.split(',').map((coding) => coding.trim().toLowerCase());
    return codings.at(-1) === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  }
  if (contentLength === undefined) return { kind: 'close' };
  const length = Number(contentLength);
  return length === 0 ? { kind: 'none' } : { kind: 'length', remaining: length };
}
