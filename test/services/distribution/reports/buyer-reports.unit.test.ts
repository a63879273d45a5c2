import { postHost } from '@leadflow/distribution/src/reports/buyer-reports';
import { expect } from 'chai';

describe('postHost: the buyer URL operators see in buyer list', () => {
  it('shows scheme and host only, for a URL as written or with references', () => {
    expect(postHost('https://api.acme.example/v2/leads?key=abc')).to.equal('https://api.acme.example');
    expect(postHost('https://${env:ACME_HOST}/v2/leads?key=abc')).to.equal('https://${env:ACME_HOST}');
    expect(postHost('${env:ACME_URL}/leads?key=abc')).to.equal('${env:ACME_URL}');
    expect(postHost('${env:ACME_URL}')).to.equal('${env:ACME_URL}');
  });
});
