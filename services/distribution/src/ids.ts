import { fillRandom } from './random-pool.js';

const CROCKFORD_CODES = Array.from('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (character) => character.charCodeAt(0));

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

/** The 26 characters of an id after its prefix, as codes: written in place, then made one string. */
const idCodes: number[] = new Array(26).fill(0);

/** Writes the base32 of `bytes` into idCodes from `at`. */
function writeBase32(bytes: Buffer, at: number): void {
  let bits = 0;
  let value = 0;
  let next = at;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      idCodes[next++] = CROCKFORD_CODES[(value >> bits) & 31]!;
    }
    value &= (1 << bits) - 1;
  }
}

/**
 * A ULID (48-bit millisecond time + 80 random bits, Crockford base32) behind a
 * type prefix: sortable by creation time, which keeps index inserts cheap, and
 * in creation order within a process even inside one millisecond.
 */
export function newId(prefix: string, now = Date.now()): string {
  let t = now;
  for (let i = 9; i >= 0; i--) {
    idCodes[i] = CROCKFORD_CODES[t % 32]!;
    t = Math.floor(t / 32);
  }
  writeBase32(nextRandom(now), 10);
  return `${prefix}_${String.fromCharCode(...idCodes)}`;
}
