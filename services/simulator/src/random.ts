import { randomInt } from 'node:crypto';
import { type Random, seededRandom } from '@leadflow/core/seeded-random';

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
