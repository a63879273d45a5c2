import type { Db } from '../db/database.js';
import type { BuyerRow } from '../db/schema.js';
import type { StoredBuyer } from './buyer.js';

function buyerOfRow(row: BuyerRow): StoredBuyer {
  return {
    id: row.id,
    name: row.name,
    active: row.active === 1,
    definitionJson: row.definition,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listBuyers(db: Db): Promise<StoredBuyer[]> {
  const rows = await db.selectFrom('buyers').selectAll().orderBy('name').execute();
  return rows.map(buyerOfRow);
}

export async function listActiveBuyers(db: Db): Promise<StoredBuyer[]> {
  const rows = await db.selectFrom('buyers').selectAll().where('active', '=', 1).execute();
  return rows.map(buyerOfRow);
}

// Names compare without case on both engines (MySQL's collation already does; SQLite's does not).
export async function findBuyersByName(db: Db, names: string[]): Promise<StoredBuyer[]> {
  if (names.length === 0) return [];
  const rows = await db
    .selectFrom('buyers')
    .selectAll()
    .where(
      (eb) => eb.fn('lower', ['name']),
      'in',
      names.map((name) => name.toLowerCase()),
    )
    .execute();
  return rows.map(buyerOfRow);
}

export async function findBuyer(db: Db, idOrName: string): Promise<StoredBuyer | undefined> {
  const row = await db
    .selectFrom('buyers')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrName), eb(eb.fn('lower', ['name']), '=', idOrName.toLowerCase())]))
    .executeTakeFirst();
  return row && buyerOfRow(row);
}

export async function insertBuyer(db: Db, buyer: StoredBuyer): Promise<void> {
  await db
    .insertInto('buyers')
    .values({
      id: buyer.id,
      name: buyer.name,
      active: buyer.active ? 1 : 0,
      definition: buyer.definitionJson,
      created_at: buyer.createdAt,
      updated_at: buyer.updatedAt,
    })
    .execute();
}

export async function updateBuyerDefinition(
  db: Db,
  id: string,
  name: string,
  active: boolean,
  definitionJson: string,
  updatedAt: number,
): Promise<void> {
  await db
    .updateTable('buyers')
    .set({ name, active: active ? 1 : 0, definition: definitionJson, updated_at: updatedAt })
    .where('id', '=', id)
    .execute();
}

export async function setBuyerActive(db: Db, id: string, active: boolean, updatedAt: number): Promise<void> {
  await db
    .updateTable('buyers')
    .set({ active: active ? 1 : 0, updated_at: updatedAt })
    .where('id', '=', id)
    .execute();
}
