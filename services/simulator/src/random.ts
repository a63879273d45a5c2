import { randomInt } from 'node:crypto';

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: small, fast and good enough to simulate a market; the same seed gives the same sequence. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomSeed(): number {
  return randomInt(0, 2 ** 32);
}

/**
 * One stream per endpoint, derived from the simulator's seed and the path, so
 * that traffic on one endpoint never shifts the draws of another.
 */
export function endpointRandom(seed: number, path: string): Random {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i += 1) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return seededRandom((seed ^ hash) >>> 0);
}
