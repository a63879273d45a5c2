import {
  HttpReplyReader,
  MAX_HEAD_BYTES,
  type ReadProgress,
} from '@leadflow/distribution/src/buyers/integration/http-reply-reader';
import { expect } from 'chai';

/** Feeds the reply in the given pieces, then the connection's end if `ended`; the last progress. */
function read(pieces: string[], options: { ended?: boolean; maxBytes?: number; head?: boolean } = {}): ReadProgress {
  const reader = new HttpReplyReader(options.maxBytes ?? 64 * 1024, options.head ?? false);
  let progress: ReadProgress = { done: false };
  for (const piece of pieces) {
    progress = reader.push(Buffer.from(piece, 'latin1'));
    if (progress.done) return progress;
  }
  return options.ended ? reader.end() : progress;
}

/** Every way to cut `text` in two, and byte by byte. */
function splits(text: string): string[][] {
  const cuts = Array.from({ length: text.length - 1 }, (_, index) => [text.slice(0, index + 1), text.slice(index + 1)]);
  return [[text], ...cuts, [...text]];
}

function replyOf(progress: ReadProgress) {
  if (!progress.done || !('reply' in progress)) throw new Error(`no reply: ${JSON.stringify(progress)}`);
  return { ...progress.reply, body: progress.reply.body.toString('utf8') };
}

describe('HttpReplyReader', () => {
  it('reads a Content-Length reply however its bytes are cut', () => {
    const text = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"status":"accepted"}';
    for (const pieces of splits(text.slice(0, -1)))
      expect(replyOf(read(pieces))).to.deep.equal({
        status: 200,
        contentType: 'application/json',
        body: '{"status":"accepted"',
        reusable: true,
      });
  });

  it('reads a chunked reply however its bytes are cut, extensions and trailers included', () => {
    const text =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=x\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Checksum: 1\r\n\r\n';
    for (const pieces of splits(text))
      expect(replyOf(read(pieces))).to.include({ status: 200, body: 'hello, world!!!', reusable: true });
  });

  it('decodes UTF-8 split between chunks of the connection', () => {
    const body = Buffer.from('{"reason":"déjà vu"}');
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
    const bytes = Buffer.concat([head, body]);
    const reader = new HttpReplyReader(1024, false);
    const cut = head.length + body.indexOf(0xc3) + 1;
    expect(reader.push(bytes.subarray(0, cut)).done).to.equal(false);
    expect(replyOf(reader.push(bytes.subarray(cut))).body).to.equal('{"reason":"déjà vu"}');
  });

  it('skips interim 1xx responses', () => {
    const text =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok';
    for (const pieces of splits(text)) expect(replyOf(read(pieces))).to.include({ status: 201, body: 'ok' });
  });

  it('reads a body that runs to the end of the connection, never reused', () => {
    const progress = read(['HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall ', 'of it'], { ended: true });
    expect(replyOf(progress)).to.include({ body: 'all of it', reusable: false });
    expect(replyOf(read(['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw'], { ended: true }))).to.include({
      body: 'raw',
      reusable: false,
    });
  });

  it('has no body for HEAD, 204 and 304, whatever the headers say', () => {
    expect(replyOf(read(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n'], { head: true }))).to.include({
      body: '',
      reusable: true,
    });
    expect(replyOf(read(['HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n']))).to.include({ status: 204 });
    expect(replyOf(read(['HTTP/1.1 304 Not Modified\r\n\r\n']))).to.include({ status: 304 });
  });

  it('reuses a connection only for HTTP/1.1 without Connection: close and with nothing after the reply', () => {
    const reply = (head: string, after = '') => replyOf(read([`${head}\r\nContent-Length: 2\r\n\r\nok${after}`]));
    expect(reply('HTTP/1.1 200 OK').reusable).to.equal(true);
    expect(reply('HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close').reusable).to.equal(false);
    expect(reply('HTTP/1.0 200 OK').reusable).to.equal(false);
    expect(reply('HTTP/1.1 200 OK', 'HTTP/1.1 200 OK\r\n').reusable).to.equal(false);
  });

  it('takes lines ended by a bare LF, a missing reason and the first Content-Type', () => {
    expect(
      replyOf(read(['HTTP/1.1 200\nContent-Type: text/plain\nContent-Type: text/html\nContent-Length: 2\n\nok'])),
    ).to.deep.equal({ status: 200, contentType: 'text/plain', body: 'ok', reusable: true });
  });

  it('refuses what is not an HTTP/1.x reply, or could be read as another', () => {
    const malformed = [
      'HTTP/2 200 OK\r\n\r\n',
      'HTTP/1.1 2000 OK\r\n\r\n',
      'ICY 200 OK\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon\r\n\r\n',
      'HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n',
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
    ];
    for (const text of malformed) expect(read([text]), text).to.deep.equal({ done: true, problem: 'malformed' });
  });

  it('refuses a head, a chunk-size line or trailers that never end, within their bounds', () => {
    const endless = (prefix: string, filler: string) => {
      const reader = new HttpReplyReader(1024, false);
      let progress = reader.push(Buffer.from(prefix));
      for (let sent = 0; !progress.done && sent < 4 * MAX_HEAD_BYTES; sent += filler.length)
        progress = reader.push(Buffer.from(filler));
      return progress;
    };
    expect(endless('HTTP/1.1 200 OK\r\nX-Long: ', 'a'.repeat(100))).to.deep.equal({ done: true, problem: 'malformed' });
    expect(endless('HTTP/1.1 200 OK\r\n', 'X-A: 1\r\n')).to.deep.equal({ done: true, problem: 'malformed' });
    expect(endless('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;', 'e'.repeat(100))).to.deep.equal({
      done: true,
      problem: 'malformed',
    });
    expect(endless('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n', 'T: 1\r\n')).to.deep.equal({
      done: true,
      problem: 'malformed',
    });
  });

  it('refuses a body over the cap: declared, chunked or running to the end', () => {
    const tooLarge = { done: true, problem: 'too_large' };
    expect(read(['HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n'], { maxBytes: 10 })).to.deep.equal(tooLarge);
    expect(
      read(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n', '6\r\nabcdef\r\n0\r\n\r\n'], {
        maxBytes: 10,
      }),
    ).to.deep.equal(tooLarge);
    expect(read(['HTTP/1.1 200 OK\r\n\r\n', 'x'.repeat(6), 'x'.repeat(6)], { maxBytes: 10 })).to.deep.equal(tooLarge);
    expect(
      replyOf(read(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', 'x'.repeat(10)], { maxBytes: 10 })).body,
    ).to.have.length(10);
  });

  it('reports a reply the connection ended before its end as cut off, never returning the part', () => {
    const cutOff = { done: true, problem: 'cut_off' };
    expect(read([], { ended: true })).to.deep.equal(cutOff);
    expect(read(['HTTP/1.1 200 OK\r\nContent-'], { ended: true })).to.deep.equal(cutOff);
    expect(read(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort'], { ended: true })).to.deep.equal(cutOff);
    expect(
      read(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n'], { ended: true }),
    ).to.deep.equal(cutOff);
  });
});
