import type { Kysely, Migration } from 'kysely';
import { type KeyRing, verifyKeyRing } from '../../security/key-ring.js';
import { reencryptLeads } from '../../security/pii-reencrypt.js';
import type { Database } from '../schema.js';

/** Leads per page: bounds memory, and on MySQL each page commits on its own, so a stopped run resumes. */
const BATCH = 500;

// Frozen once released. Names, e-mail, phones, street address and IP were
// kept in the plain `fields` JSON; they move into each lead's ciphertext (a
// purged lead just loses them). Needs the key ring, so it is built with one;
// the ring is checked against the stored leads before anything is written
// with it. Resumable: a lead already sealed is skipped.
export function encryptPersonalFields(ring: KeyRing): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const leads = db as Kysely<Database>;
      await verifyKeyRing(leads, ring);
      await reencryptLeads(leads, ring.cipher, BATCH);
    },
  };
}
