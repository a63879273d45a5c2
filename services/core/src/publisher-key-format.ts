/** Every key starts so; secret scanners and people can recognise a leaked one. */
export const PUBLISHER_KEY_PREFIX = 'lfpk_';

/**
 * The prefix and the base64url text of 256 random bits: 43 characters, the last of which carries 4 bits
 * and 2 zero bits, so it is one of 16.
 */
const PUBLISHER_KEY = /^lfpk_[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** Whether `candidate` has the shape of an issued key: anything else cannot be one, and needs no look-up. */
export function isWellFormedPublisherKey(candidate: string): boolean {
  return PUBLISHER_KEY.test(candidate);
}
