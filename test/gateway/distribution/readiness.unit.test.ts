import { ReadinessProbe } from '@leadflow/gateway/src/distribution/readiness';
import { expect } from 'chai';

describe('ReadinessProbe', () => {
  it('reuses an answer for cacheMs, then asks again', async () => {
    let calls = 0;
    let up = true;
    const probe = new ReadinessProbe(async () => {
      calls += 1;
      if (!up) throw new Error('down');
    }, 1000);
    expect(await probe.isReady(0)).to.equal(true);
    up = false;
    expect(await probe.isReady(999)).to.equal(true);
    expect(await probe.isReady(1000)).to.equal(false);
    expect(calls).to.equal(2);
  });
});
