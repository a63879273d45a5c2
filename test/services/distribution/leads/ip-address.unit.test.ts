import { canonicalIpAddress } from '@leadflow/distribution/src/leads/ip-address';
import { expect } from 'chai';

describe('canonicalIpAddress', () => {
  it('writes every spelling of an IPv6 address one way: lower case, no leading zeros, zeros compressed', () => {
    const spellings: Record<string, string[]> = {
      '2001:db8::1': ['2001:db8::1', '2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8:0:0::1'],
      '::': ['::', '0:0:0:0:0:0:0:0'],
      '::ffff:c000:201': ['::ffff:192.0.2.1', '::FFFF:C000:0201'],
      'fe80::1:0:0:1': ['fe80:0:0:0:1::1', 'fe80::1:0:0:1'],
    };
    for (const [canonical, written] of Object.entries(spellings)) {
      for (const address of written) expect(canonicalIpAddress(address), address).to.equal(canonical);
    }
  });

  it('keeps an IPv4 address as it is', () => {
    expect(canonicalIpAddress('203.0.113.7')).to.equal('203.0.113.7');
  });
});
