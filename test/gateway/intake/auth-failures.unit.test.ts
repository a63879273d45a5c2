import { AuthFailures } from '@leadflow/gateway/src/intake/auth-failures';
import { clientAddressGroup } from '@leadflow/gateway/src/intake/client-address';
import { LocalRateLimiter } from '@leadflow/gateway/src/rate-limit/local-rate-limiter';
import { expect } from 'chai';

describe('clientAddressGroup', () => {
  it('keeps an IPv4 address, also when it arrives IPv4-mapped', () => {
    expect(clientAddressGroup('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientAddressGroup('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(clientAddressGroup('::ffff:cb00:7107')).to.equal('203.0.113.7');
  });

  it('names an IPv6 client by its /56, however the address is written', () => {
    const group = '2001:db8:1:0:0:0:0:0/56';
    for (const address of [
      '2001:db8:1::1',
      '2001:DB8:1:ff:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0042::',
      '2001:db8:1:2::192.0.2.1',
      '2001:db8:1::9%eth0',
    ]) {
      expect(clientAddressGroup(address), address).to.equal(group);
    }
    expect(clientAddressGroup('2001:db8:1:100::1')).to.equal('2001:db8:1:100:0:0:0:0/56');
    expect(clientAddressGroup('::1')).to.equal('0:0:0:0:0:0:0:0/56');
  });
});

describe('AuthFailures', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000_000));

  function failures(limit: number, maxLockouts?: number): AuthFailures {
    return new AuthFailures({ limiter: new LocalRateLimiter({ now }), limit, maxLockouts, now });
  }

  it('locks an address out once it has used its allowance, until a slot frees', async () => {
    const counted = failures(3);
    expect((await counted.record('198.51.100.1')).allowed).to.equal(true);
    expect((await counted.record('198.51.100.1')).allowed).to.equal(true);
    expect(counted.lockedOutSeconds('198.51.100.1')).to.equal(0);
    const last = await counted.record('198.51.100.1');
    expect(last).to.include({ allowed: true, remaining: 0, resetSeconds: 60 });
    expect(counted.lockedOutSeconds('198.51.100.1')).to.equal(60);
    expect(counted.lockedOutSeconds('198.51.100.2')).to.equal(0);
    clock += 59_500;
    expect(counted.lockedOutSeconds('198.51.100.1')).to.equal(1);
    clock += 500;
    expect(counted.lockedOutSeconds('198.51.100.1')).to.equal(0);
    expect((await counted.record('198.51.100.1')).allowed).to.equal(true);
  });

  it('remembers at most maxLockouts addresses, the newest', async () => {
    const counted = failures(1, 100);
    for (let i = 0; i < 1000; i += 1) await counted.record(`address-${i}`);
    expect(counted.lockedOutSeconds('address-999')).to.equal(60);
    expect(counted.lockedOutSeconds('address-900')).to.equal(60);
    expect(counted.lockedOutSeconds('address-899')).to.equal(0);
  });
});
