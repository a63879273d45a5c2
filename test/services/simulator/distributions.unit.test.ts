import { seededRandom } from '@leadflow/core/seeded-random';
import { type Distribution, sample, sampleCents } from '@leadflow/simulator/src/distributions';
import { endpointRandom } from '@leadflow/simulator/src/random';
import { expect } from 'chai';
import fc from 'fast-check';

const amount = fc.double({ min: 0, max: 10_000, noNaN: true });

const distributions: fc.Arbitrary<{ distribution: Distribution; min: number; max: number }> = fc.oneof(
  amount.map((fixed) => ({ distribution: { fixed }, min: fixed, max: fixed })),
  fc.tuple(amount, amount).map(([a, b]) => {
    const [min, max] = [Math.min(a, b), Math.max(a, b)];
    return { distribution: { uniform: [min, max] as [number, number] }, min, max };
  }),
  fc
    .tuple(amount, amount, fc.double({ min: 0, max: 5_000, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([a, b, sd, at]) => {
      const [min, max] = [Math.min(a, b), Math.max(a, b)];
      return { distribution: { normal: { mean: min + (max - min) * at, sd, min, max } }, min, max };
    }),
);

describe('simulator distributions', () => {
  it('never draw outside their bounds', () => {
    fc.assert(
      fc.property(distributions, fc.integer({ min: 0, max: 2 ** 32 - 1 }), ({ distribution, min, max }, seed) => {
        const random = seededRandom(seed);
        for (let i = 0; i < 200; i += 1) {
          const value = sample(distribution, random);
          expect(value).to.be.within(min, max);
        }
      }),
    );
  });

  it('draw the same sequence from the same seed, and another from another seed', () => {
    const distribution: Distribution = { normal: { mean: 30, sd: 10, min: 5, max: 80 } };
    const draws = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => sampleCents(distribution, random));
    };
    expect(draws(7)).to.deep.equal(draws(7));
    expect(draws(7)).to.not.deep.equal(draws(8));
  });

  it('centre a normal on its mean and spread it by its deviation', () => {
    const random = seededRandom(42);
    const values = Array.from({ length: 20_000 }, () =>
      sample({ normal: { mean: 100, sd: 15, min: 0, max: 200 } }, random),
    );
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const sd = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
    expect(mean).to.be.closeTo(100, 1);
    expect(sd).to.be.closeTo(15, 1);
  });

  it('spread a uniform over its whole range', () => {
    const random = seededRandom(42);
    const values = Array.from({ length: 10_000 }, () => sample({ uniform: [5, 40] }, random));
    expect(Math.min(...values)).to.be.below(5.1);
    expect(Math.max(...values)).to.be.above(39.9);
  });

  it('give each endpoint its own stream', () => {
    const a = endpointRandom(1, '/a/post');
    const b = endpointRandom(1, '/b/post');
    expect([a(), a(), a()]).to.not.deep.equal([b(), b(), b()]);
    const again = endpointRandom(1, '/a/post');
    const fresh = endpointRandom(1, '/a/post');
    expect([again(), again()]).to.deep.equal([fresh(), fresh()]);
  });
});
