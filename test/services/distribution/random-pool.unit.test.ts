import { fillRandom } from '@leadflow/distribution/src/random-pool';
import { expect } from 'chai';
import { testKeyRing } from '../../support/key-ring.js';

describe('random bytes drawn in blocks', () => {
  it('never hands out the same bytes twice, across refills of its block and beyond its size', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) seen.add(fillRandom(Buffer.alloc(12)).toString('hex'));
    expect(seen.size).to.equal(5_000);
    const large = fillRandom(Buffer.alloc(10_000));
    expect(new Set(large).size, 'every byte value turns up in 10,000 random bytes').to.equal(256);
  });

  it('gives every encrypted lead its own IV', () => {
    const { cipher } = testKeyRing();
    const ivs = new Set<string>();
    for (let i = 0; i < 1_000; i += 1) ivs.add(cipher.encrypt('same plaintext').split('.')[2]!);
    expect(ivs.size).to.equal(1_000);
  });
});
