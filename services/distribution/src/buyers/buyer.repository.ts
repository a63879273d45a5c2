import type { Db } from '../db/database.js';
import type { BuyerRow } from '../db/schema.js';

export async function listBuyers(db: Db): Promise<BuyerRow[]> {
  return db.selectFrom('buyers').selectAll().orderBy('name').execute();
}

export async function listActiveBuyers(db: Db): Promise<BuyerRow[]> {
  return db.selectFrom('buyers').selectAll().where('active', '=', 1).execute();
}

// Names compare without case on both engines (MySQL's collation already does; SQLite's does not).
export async function findBuyersByName(db: Db, names: string[]): Promise<BuyerRow[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('buyers')
    .selectAll()
    .where(
      (eb) => eb.fn('lower', ['name']),
      'in',
      names.map((name) => name.toLowerCase()),
    )
    .execute();
}

export async function findBuyer(db: Db, idOrName: string): Promise<BuyerRow | undefined> {
  return db
    .selectFrom('buyers')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrName), eb(eb.fn('lower', ['name']), '=', idOrName.toLowerCase())]))
    .executeTakeFirst();
}

export async function insertBuyer(db: Db, buyer: BuyerRow): Promise<void> {
  await db.insertInto('buyers').values(buyer).execute();
}

export async function updateBuyerDefinition(
  db: Db,
  id: string,
  name: string,
  active: number,
  definition: string,
  updatedAt: number,
): Promise<void> {
  await db
    .updateTable('buyers')
    .set({ name, active, definition, updated_at: updatedAt })
    .where('id', '=', id)
    .execute();
}

export async function setBuyerActive(db: Db, id: string, active: number, updatedAt: number): Promise<void> {
  await db.updateTable('buyers').set({ active, updated_at: updatedAt }).where('id', '=', id).execute();
}
