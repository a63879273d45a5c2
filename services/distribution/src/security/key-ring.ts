import { ConfigError } from '@leadflow/service-kit/config';
import type { Kysely } from 'kysely';
import { isDuplicateKeyError } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { KeyedHasher } from './keyed-hash.js';
import type { PiiCipher } from './pii-cipher.js';

/** The keys a deployment's data is written with. */
export interface KeyRing {
  cipher: PiiCipher;
  hasher: KeyedHasher;
}

const HMAC_CHECK = 'hmac';
const PII_CHECK_PREFIX = 'pii:';
const RESTORE_ADVICE =
  'start with the secrets that belong to this database (LEADFLOW_PII_KEYS and LEADFLOW_HMAC_KEY, or the data ' +
  "directory's secrets.json from the same backup): with other keys its leads could not be read and duplicate checks would match nothing";

function mismatch(what: string): ConfigError {
  return new ConfigError(`the key ring does not match this database: ${what}; ${RESTORE_ADVICE}`);
}

async function storedChecks(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('key_checks').select(['name', 'check_value']).execute();
  return new Map(rows.map((row) => [row.name, row.check_value]));
}

function ringChecks(ring: KeyRing): Map<string, string> {
  const checks = new Map([[HMAC_CHECK, ring.hasher.checkValue()]]);
  for (const kid of ring.cipher.keyIds()) checks.set(`${PII_CHECK_PREFIX}${kid}`, ring.cipher.checkValue(kid));
  return checks;
}

/** Refuses a ring that holds another key under a recorded name, or shares no PII key with the recorded ones. */
function compare(stored: Map<string, string>, ring: Map<string, string>): void {
  const storedHmac = stored.get(HMAC_CHECK);
  if (storedHmac !== undefined && storedHmac !== ring.get(HMAC_CHECK)) {
    throw mismatch('the HMAC key is not the one its duplicate-check hashes were made with');
  }
  const storedKids = [...stored.keys()].filter((name) => name.startsWith(PII_CHECK_PREFIX));
  for (const name of storedKids) {
    const mine = ring.get(name);
    if (mine !== undefined && mine !== stored.get(name)) {
      throw mismatch(
        `PII key ${name.slice(PII_CHECK_PREFIX.length)} is not the key of that id its leads were encrypted with`,
      );
    }
  }
  if (storedKids.length > 0 && !storedKids.some((name) => ring.has(name))) {
    const names = (list: string[]) => list.map((name) => name.slice(PII_CHECK_PREFIX.length)).join(', ');
    throw mismatch(
      `its leads are encrypted under PII key ${names(storedKids)} and the ring holds none of them (keep the old key after the new one until \`leadflow pii reencrypt\` reports 0)`,
    );
  }
}

/**
 * A database written before check values were recorded: the ring must open
 * a stored lead and hash its SSN to the stored hash. A database whose leads
 * are all purged (or that holds none) has nothing left to protect.
 */
async function verifyAgainstLeads(db: Kysely<Database>, ring: KeyRing): Promise<void> {
  const lead = await db
    .selectFrom('leads')
    .select(['sensitive', 'ssn_hash'])
    .where('sensitive_purged_at', 'is', null)
    .where('sensitive', '!=', '')
    .limit(1)
    .executeTakeFirst();
  if (!lead) return;
  let ssn: unknown;
  try {
    ssn = JSON.parse(ring.cipher.decrypt(lead.sensitive)).ssn;
  } catch {
    throw mismatch('no PII key of the ring decrypts its leads');
  }
  if (typeof ssn === 'string' && ring.hasher.hash('ssn', ssn) !== lead.ssn_hash) {
    throw mismatch('the HMAC key is not the one its duplicate-check hashes were made with');
  }
}

/**
 * Refuses to run over data written with other keys, before anything is
 * written with them, and records the check values of keys new to this
 * database (first start, a key added for rotation). Safe for instances
 * starting at once: a check value is recorded once, and whoever loses that
 * race is compared with the winner's.
 */
export async function verifyKeyRing(db: Kysely<Database>, ring: KeyRing): Promise<void> {
  const stored = await storedChecks(db);
  const mine = ringChecks(ring);
  if (stored.size === 0) await verifyAgainstLeads(db, ring);
  else compare(stored, mine);
  const now = Date.now();
  for (const [name, checkValue] of mine) {
    if (stored.has(name)) continue;
    try {
      await db.insertInto('key_checks').values({ name, check_value: checkValue, created_at: now }).execute();
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
  compare(await storedChecks(db), mine);
}
