import { expect } from 'chai';
import { checkDestination, isPublicAddress } from '../../../services/distribution/src/buyers/integration/destination.js';

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
    ]) {
      expect(checkDestination(url, false), url).to.deep.equal({ refused: 'not_allowed' });
    }
  });

  it('lets a local buyer use http:// and private addresses', () => {
    expect(checkDestination('http://127.0.0.1:8080/leads', true)).to.have.property('url');
    expect(checkDestination('https://10.0.0.5/leads', true)).to.have.property('url');
  });

  it('refuses credentials in the URL, local or not', () => {
    expect(checkDestination('https://user:secret@api.lender.example/', false)).to.deep.equal({ refused: 'not_allowed' });
    expect(checkDestination('http://user@127.0.0.1/', true)).to.deep.equal({ refused: 'not_allowed' });
  });

  it('refuses what is not an absolute http(s) URL', () => {
    for (const url of ['', 'api.lender.example/leads', '/leads', 'ftp://lender.example/', 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect(checkDestination(url, true), url).to.deep.equal({ refused: 'invalid_url' });
    }
  });
});

describe('isPublicAddress', () => {
  it('tells public addresses from the others', () => {
    expect(isPublicAddress('8.8.8.8')).to.equal(true);
    expect(isPublicAddress('2606:4700:4700::1111')).to.equal(true);
    for (const address of ['127.0.0.1', '10.0.0.1', '100.64.0.1', '172.31.255.255', '192.168.0.1', '169.254.0.1', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', 'not an ip']) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });
});
