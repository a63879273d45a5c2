import type { Buyer } from '../buyers/buyer.js';
import type { Db } from '../db/database.js';
import type { LeadPostState } from '../db/schema.js';
import type { PersonHashes } from '../leads/stored-lead.js';
import { listPostsOfPerson } from './lead-post.repository.js';
import { deleteHolds, deleteStaleHolds, insertHolds } from './person-hold.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Posts by which a buyer bought the person, may hold them, or turned them down. */
const HISTORY_POST_STATES: readonly LeadPostState[] = ['accepted', 'rejected', 'pending', 'unknown'];

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
  const posts = await listPostsOfPerson(
    db,
    person,
    leadId,
    now - longestLookbackDays * DAY_MS,
    HISTORY_POST_STATES,
    checking.map((buyer) => buyer.id),
  );
  const policies = new Map(checking.map((buyer) => [buyer.id, buyer.definition.duplicates!]));
  for (const post of posts) {
    const policy = policies.get(post.buyerId)!;
    if (post.leadCreatedAt < now - policy.lookbackDays * DAY_MS) continue;
    if (post.state === 'rejected' && !policy.includeRejected) continue;
    const samePerson = policy.match.some((what) => post[what] === person[what]);
    if (samePerson) found.add(post.buyerId);
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
  await deleteStaleHolds(db, buyer.id, keys, now - HOLD_TTL_MS, leadId);
  return insertHolds(db, buyer.id, keys, leadId, now);
}

/** Lets the person go when the buyer did not take the lead. */
export async function releasePerson(db: Db, buyer: Buyer, person: PersonHashes): Promise<void> {
  const keys = personKeys(buyer, person);
  if (keys.length === 0) return;
  await deleteHolds(db, buyer.id, keys);
}
