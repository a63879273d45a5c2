import { isLeadField } from '@leadflow/core/lead-fields';
import type { Db } from '@leadflow/distribution/src/db/database';
import { migrations } from '@leadflow/distribution/src/db/migrations/index';
import type { NewLeadRow } from '@leadflow/distribution/src/db/schema';
import { newId } from '@leadflow/distribution/src/ids';
import { leadRow } from '@leadflow/distribution/src/leads/lead.repository';
import { personHashes, storedLead } from '@leadflow/distribution/src/leads/lead-record';
import { validateLead } from '@leadflow/distribution/src/leads/validation';
import type { KeyRing } from '@leadflow/distribution/src/security/key-ring';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { Migrator } from 'kysely';

/** What releases before 2026_11_23 encrypted; names, contacts and the IP stayed in the plain `fields` JSON. */
const LEGACY_ENCRYPTED = new Set(['ssn', 'dob', 'bankAba', 'bankAccountNumber', 'driversLicenseNumber']);
/** The last migration of that release. */
const LEGACY_SCHEMA = '2026_11_22_0005_buyer_cap_holds';

/** Brings a database to the schema of the release before personal fields were all encrypted. */
export async function migrateToLegacySchema(db: Db, ring: KeyRing): Promise<void> {
  const all = migrations(ring);
  const names = Object.keys(all);
  const legacy = Object.fromEntries(names.slice(0, names.indexOf(LEGACY_SCHEMA) + 1).map((name) => [name, all[name]!]));
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => legacy } }).migrateToLatest();
  if (error) throw error;
}

/** A lead row as that release stored it, for a lead posted with `body`. */
export function legacyLeadRow(
  body: Record<string, unknown>,
  ring: KeyRing,
  publisherId: string,
  now = Date.now(),
): NewLeadRow {
  const lead = Lead.fromPartial(
    Object.fromEntries(Object.entries(body).filter(([field]) => isLeadField(field))) as Partial<Lead>,
  );
  const validation = validateLead(lead, [], new Date(now));
  if (!validation.ok) throw new Error(`invalid lead: ${JSON.stringify(validation.errors)}`);
  const valid = validation.lead;
  const identity = {
    id: newId('lead', now),
    publisherId,
    fingerprint: 'legacy',
    claimToken: 'legacy',
    now,
    person: personHashes(valid, ring.hasher),
  };
  const row = leadRow(storedLead(valid, identity, ring.cipher));
  const personal: Record<string, string> = JSON.parse(ring.cipher.decrypt(row.sensitive));
  const encrypted = Object.fromEntries(Object.entries(personal).filter(([field]) => LEGACY_ENCRYPTED.has(field)));
  const plain = Object.fromEntries(Object.entries(personal).filter(([field]) => !LEGACY_ENCRYPTED.has(field)));
  return {
    ...row,
    status: 'rejected',
    completed_at: now,
    fields: JSON.stringify({ ...JSON.parse(row.fields), ...plain }),
    sensitive: ring.cipher.encrypt(JSON.stringify(encrypted)),
  };
}
