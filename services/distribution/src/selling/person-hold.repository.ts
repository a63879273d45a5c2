import { type Db, isDuplicateKeyError } from '../db/database.js';

/** Deletes the buyer's holds of these person keys that were taken before `heldBefore`, or by the lead. */
export async function deleteStaleHolds(
  db: Db,
  buyerId: string,
  personKeys: readonly string[],
  heldBefore: number,
  leadId: string,
): Promise<void> {
  await db
    .deleteFrom('buyer_person_holds')
    .where('buyer_id', '=', buyerId)
    .where('person', 'in', personKeys)
    .where((eb) => eb.or([eb('held_at', '<', heldBefore), eb('lead_id', '=', leadId)]))
    .execute();
}

/** Holds all of the person keys for the buyer in one statement, or none: false when one is held already. */
export async function insertHolds(
  db: Db,
  buyerId: string,
  personKeys: readonly string[],
  leadId: string,
  heldAt: number,
): Promise<boolean> {
  try {
    await db
      .insertInto('buyer_person_holds')
      .values(personKeys.map((person) => ({ buyer_id: buyerId, person, held_at: heldAt, lead_id: leadId })))
      .execute();
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

export async function deleteHolds(db: Db, buyerId: string, personKeys: readonly string[]): Promise<void> {
  await db.deleteFrom('buyer_person_holds').where('buyer_id', '=', buyerId).where('person', 'in', personKeys).execute();
}
