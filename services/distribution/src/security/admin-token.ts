import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares a presented admin token with the configured one in constant time. */
export function adminTokenMatches(expected: string, presented: string): boolean {
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}
