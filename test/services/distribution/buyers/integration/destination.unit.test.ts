import {
  checkDestination,
  isLoopbackName,
  isPublicAddress,
} from '@leadflow/distribution/src/buyers/integration/destination';
import { expect } from 'chai';

describe('checkDestination', () => {
  it('lets a non-local buyer reach public https URLs', () => {
    expect(checkDestination('https://api.lender.example/leads', false)).to.have.property('url');
    expect(checkDestination('https://93.184.216.34/leads', false)).to.have.property('url');
  });

  it('refuses http:// for a buyer not marked local', () => {
    expect(checkDestination('http://api.lender.example/leads', false)).to.deep.equal({ refused: 'not_allowed' });
  });

  it('refuses non-public IP literals for a buyer not marked local, however written', () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://172.20.0.1/',
      'https://192.168.1.10/',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
      'https://2130706433/',
      'https://0x7f.0.0.1/',
      'https://[64:ff9b::7f00:1]/',
      'https://[2002:7f00:1::1]/',
      'https://[::127.0.0.1]/',
      'https://192.0.2.1/',
      'https://[2001:db8::1]/',
    ]) {
      expect(checkDestination(url, false), url).to.deep.equal({ refused: 'not_allowed' });
    }
  });

  it('lets a local buyer use http:// and private addresses', () => {
    expect(checkDestination('http://127.0.0.1:8080/leads', true)).to.have.property('url');
    expect(checkDestination('https://10.0.0.5/leads', true)).to.have.property('url');
  });

  it('refuses credentials in the URL, local or not', () => {
    expect(checkDestination('https://user:secret@api.lender.example/', false)).to.deep.equal({
      refused: 'not_allowed',
    });
    expect(checkDestination('http://user@127.0.0.1/', true)).to.deep.equal({ refused: 'not_allowed' });
  });

  it('refuses what is not an absolute http(s) URL', () => {
    for (const url of [
      '',
      'api.lender.example/leads',
      '/leads',
      'ftp://lender.example/',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ]) {
      expect(checkDestination(url, true), url).to.deep.equal({ refused: 'invalid_url' });
    }
  });
});

describe('isPublicAddress', () => {
  it('tells public addresses from the others', () => {
    expect(isPublicAddress('8.8.8.8')).to.equal(true);
    expect(isPublicAddress('2606:4700:4700::1111')).to.equal(true);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '100.64.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      'not an ip',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });

  it('refuses documentation ranges and IPv6 addresses that reach a non-public IPv4', () => {
    for (const address of [
      '192.0.2.10',
      '198.51.100.7',
      '203.0.113.200',
      '2001:db8::1',
      '3fff:0fff::1',
      // NAT64 to loopback, private, metadata; written in hex and dotted.
      '64:ff9b::7f00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b::169.254.169.254',
      '64:ff9b:1::8.8.8.8',
      // 6to4 around loopback and private addresses.
      '2002:7f00:1::1',
      '2002:c0a8:101::',
      '2002:a9fe:a9fe:1:2:3:4:5',
      // IPv4-compatible (deprecated), Teredo, discard-only.
      '::127.0.0.1',
      '::8.8.8.8',
      '::a00:1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '100::1',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });

  it('lets NAT64 and 6to4 reach public IPv4 addresses', () => {
    expect(isPublicAddress('64:ff9b::8.8.8.8')).to.equal(true);
    expect(isPublicAddress('64:ff9b::808:808')).to.equal(true);
    expect(isPublicAddress('2002:808:808::1')).to.equal(true);
  });
});

describe('isLoopbackName', () => {
  it('is true for localhost and the names under it, whatever the case or a final dot', () => {
    for (const name of ['localhost', 'LocalHost', 'localhost.', 'api.localhost', 'a.b.localhost.']) {
      expect(isLoopbackName(name), name).to.equal(true);
    }
    for (const name of ['localhost.example', 'notlocalhost', 'mylocalhost', '127.0.0.1', 'example.com']) {
      expect(isLoopbackName(name), name).to.equal(false);
    }
  });
});
