import { type Db, isDuplicateKeyError } from '../db/database.js';
import type { Buyer } from './buyer.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PersonHashes {
  ssn: string;
  email: string;
  phone: string;
}

/**
 * The buyers that already bought this person, may hold them (a post of theirs whose answer never
 * came) or, if their policy says so, turned them down, within their look-back, judged by the keyed
 * hashes of SSN, e-mail and phone. Test leads are not history.
 */
export async function buyersWithDuplicate(
  db: Db,
  leadId: string,
  person: PersonHashes,
  buyers: readonly Buyer[],
  now: number,
): Promise<Set<string>> {
  const checking = buyers.filter((buyer) => buyer.definition.duplicates !== undefined);
  const found = new Set<string>();
  if (checking.length === 0) return found;
  const longestLookbackDays = Math.max(...checking.map((buyer) => buyer.definition.duplicates!.lookbackDays));
  const rows = await db
    .selectFrom('leads')
    .innerJoin('lead_posts', 'lead_posts.lead_id', 'leads.id')
    .select([
      'lead_posts.buyer_id',
      'lead_posts.state',
      'leads.created_at',
      'leads.ssn_hash',
      'leads.email_hash',
      'leads.phone_hash',
    ])
    .where((eb) =>
      eb.or([
        eb('leads.ssn_hash', '=', person.ssn),
        eb('leads.email_hash', '=', person.email),
        eb('leads.phone_hash', '=', person.phone),
      ]),
    )
    .where('leads.id', '<>', leadId)
    .where('leads.is_test', '=', 0)
    .where('leads.created_at', '>=', now - longestLookbackDays * DAY_MS)
    .where('lead_posts.state', 'in', ['accepted', 'rejected', 'pending', 'unknown'])
    .where(
      'lead_posts.buyer_id',
      'in',
      checking.map((buyer) => buyer.id),
    )
    .execute();
  const policies = new Map(checking.map((buyer) => [buyer.id, buyer.definition.duplicates!]));
  for (const row of rows) {
    const policy = policies.get(row.buyer_id)!;
    if (row.created_at < now - policy.lookbackDays * DAY_MS) continue;
    if (row.state === 'rejected' && !policy.includeRejected) continue;
    const samePerson = policy.match.some((what) => row[`${what}_hash`] === person[what]);
    if (samePerson) found.add(row.buyer_id);
  }
  return found;
}

/** A hold outlives its lead's sale by this much; by then the sale is in the history buyersWithDuplicate reads. */
const HOLD_TTL_MS = 10 * 60 * 1000;

function personKeys(buyer: Buyer, person: PersonHashes): string[] {
  return (buyer.definition.duplicates?.match ?? []).map((what) => `${what}:${person[what]}`);
}

/**
 * Holds the person for the buyer while one of their leads is posted to it: false when another lead of
 * the same person holds them (posted right now, or sold moments ago). The lead's own hold (left by a
 * sale that a crash cut off) is its to take again. Buyers without a duplicate policy hold nothing.
 */
export async function holdPerson(
  db: Db,
  buyer: Buyer,
  person: PersonHashes,
  leadId: string,
  now: number,
): Promise<boolean> {
  const keys = personKeys(buyer, person);
  if (keys.length === 0) return true;
  await db
    .deleteFrom('buyer_person_holds')
    .where('buyer_id', '=', buyer.id)
    .where('person', 'in', keys)
    .where((eb) => eb.or([eb('held_at', '<', now - HOLD_TTL_MS), eb('lead_id', '=', leadId)]))
    .execute();
  try {
    // One statement: all of the person's keys are held, or none.
    await db
      .insertInto('buyer_person_holds')
      .values(keys.map((key) => ({ buyer_id: buyer.id, person: key, held_at: now, lead_id: leadId })))
      .execute();
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** Lets the person go when the buyer did not take the lead. */
export async function releasePerson(db: Db, buyer: Buyer, person: PersonHashes): Promise<void> {
  const keys = personKeys(buyer, person);
  if (keys.length === 0) return;
  await db.deleteFrom('buyer_person_holds').where('buyer_id', '=', buyer.id).where('person', 'in', keys).execute();
}
