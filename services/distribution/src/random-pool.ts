import { randomFillSync } from 'node:crypto';

// One call to the system's generator per 4 KB instead of one per use: ids and IVs are made several
// times a lead, and each call costs far more than the bytes it returns.
const pool = Buffer.alloc(4096);
let used = pool.length;

/**
 * Fills `target` with bytes of the system's cryptographic generator, drawn in blocks. For values that
 * must be unique and unguessable but are not keys (ids, IVs): a key is drawn on its own.
 */
export function fillRandom(target: Buffer): Buffer {
  if (target.length > pool.length) return randomFillSync(target);
  if (used + target.length > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  pool.copy(target, 0, used, used + target.length);
  used += target.length;
  return target;
}
