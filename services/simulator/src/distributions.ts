import type { Random } from '@leadflow/core/seeded-random';

/** A random quantity: dollars for prices and bids, milliseconds for latency. */
export type Distribution =
  | { fixed: number }
  | { uniform: [min: number, max: number] }
  | { normal: { mean: number; sd: number; min: number; max: number } };

// Past this many draws outside [min, max] the bound is used: only a normal far off its bounds gets there.
const NORMAL_REDRAWS = 32;

export function sample(distribution: Distribution, random: Random): number {
  if ('fixed' in distribution) return distribution.fixed;
  if ('uniform' in distribution) {
    const [min, max] = distribution.uniform;
    // min() against a rounding step past max.
    return Math.min(max, min + (max - min) * random());
  }
  const { mean, sd, min, max } = distribution.normal;
  let value = mean;
  for (let draw = 0; draw < NORMAL_REDRAWS; draw += 1) {
    value = mean + sd * standardNormal(random);
    if (value >= min && value <= max) return value;
  }
  return Math.min(max, Math.max(min, value));
}

/** The distribution's mean; a normal's before its bounds clip it. */
export function meanOf(distribution: Distribution): number {
  if ('fixed' in distribution) return distribution.fixed;
  if ('uniform' in distribution) return (distribution.uniform[0] + distribution.uniform[1]) / 2;
  return distribution.normal.mean;
}

/** Box-Muller. */
function standardNormal(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Dollars drawn from the distribution, as whole cents. */
export function sampleCents(distribution: Distribution, random: Random): number {
  return Math.round(sample(distribution, random) * 100);
}

export function sampleMs(distribution: Distribution, random: Random): number {
  return Math.round(sample(distribution, random));
}
