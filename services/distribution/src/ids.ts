import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const RANDOM_BYTES = 10;
// One call to the system's generator per 409 ids instead of one per id: ids are made several times a lead.
const pool = Buffer.alloc(RANDOM_BYTES * 409);
let poolOffset = pool.length;

function randomBits(): Buffer {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += RANDOM_BYTES;
  return pool.subarray(poolOffset - RANDOM_BYTES, poolOffset);
}

/**
 * A ULID (48-bit millisecond time + 80 random bits, Crockford base32) behind a
 * type prefix: sortable by creation time, which keeps index inserts cheap.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = randomBits();
  let bits = 0;
  let value = 0;
  let tail = '';
  for (const byte of random) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      tail += CROCKFORD[(value >> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return `${prefix}_${time}${tail}`;
}
