import { fillRandom } from './random-pool.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const RANDOM_BYTES = 10;

/** The last id's time and random part, so that ids made in the same millisecond still sort in order. */
let lastTime = -1;
const lastRandom = Buffer.alloc(RANDOM_BYTES);

function nextRandom(now: number): Buffer {
  if (now === lastTime) {
    // Monotonic ULID: the same millisecond increments the previous random part.
    for (let index = RANDOM_BYTES - 1; index >= 0 && ++lastRandom[index]! === 256; index--) lastRandom[index] = 0;
  } else {
    fillRandom(lastRandom);
    lastTime = now;
  }
  return lastRandom;
}

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let text = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      text += CROCKFORD[(value >> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return text;
}

/**
 * A ULID (48-bit millisecond time + 80 random bits, Crockford base32) behind a
 * type prefix: sortable by creation time, which keeps index inserts cheap, and
 * in creation order within a process even inside one millisecond.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return `${prefix}_${time}${base32(nextRandom(now))}`;
}
