import { InvalidHeaderError, requestBytes } from '@leadflow/distribution/src/buyers/integration/http-request-bytes';
import { expect } from 'chai';

describe('requestBytes', () => {
  it('writes the request line, Host, the headers, the body length in bytes and the body', () => {
    const bytes = requestBytes(
      { url: 'ignored', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Zoë"}' },
      '/leads?src=lf',
      'buyer.example:8443',
    );
    expect(bytes.toString('utf8')).to.equal(
      'POST /leads?src=lf HTTP/1.1\r\nHost: buyer.example:8443\r\nConnection: keep-alive\r\n' +
        'content-type: application/json\r\nContent-Length: 15\r\n\r\n{"name":"Zoë"}',
    );
  });

  it('sends a GET without a body or Content-Length, and a Latin-1 header value as Latin-1', () => {
    const bytes = requestBytes(
      { url: 'ignored', method: 'GET', headers: { 'x-city': 'Málaga' }, body: undefined },
      '/q?a=1',
      'b',
    );
    expect(bytes.toString('latin1')).to.equal(
      'GET /q?a=1 HTTP/1.1\r\nHost: b\r\nConnection: keep-alive\r\nx-city: Málaga\r\n\r\n',
    );
    expect(bytes.includes(Buffer.from([0xe1]))).to.equal(true);
  });

  it('refuses a header name or value that could split the request', () => {
    const refused: Record<string, string>[] = [
      { 'x-token': 'a\r\nInjected: yes' },
      { 'x-token': 'a\u0000' },
      { 'bad name': 'v' },
      { 'x-euro': '€' },
    ];
    for (const headers of refused)
      expect(() => requestBytes({ url: 'ignored', method: 'POST', headers, body: '' }, '/', 'b')).to.throw(
        InvalidHeaderError,
        /^a request header has an invalid name or value$/,
      );
  });
});
