import type { Db } from '../db/database.js';
import type { BuyerRow, NewBuyerRow } from '../db/schema.js';

export async function listBuyers(db: Db): Promise<BuyerRow[]> {
  return db.selectFrom('buyers').selectAll().orderBy('priority').orderBy('name').execute();
}

export async function listActiveBuyers(db: Db): Promise<BuyerRow[]> {
  return db.selectFrom('buyers').selectAll().where('active', '=', 1).orderBy('priority').orderBy('name').execute();
}

export async function findBuyerByName(db: Db, name: string): Promise<BuyerRow | undefined> {
  return db.selectFrom('buyers').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function insertBuyer(db: Db, buyer: NewBuyerRow): Promise<void> {
  await db.insertInto('buyers').values(buyer).execute();
}

export async function updateBuyer(db: Db, id: string, changes: Omit<NewBuyerRow, 'id' | 'created_at'>): Promise<void> {
  await db.updateTable('buyers').set(changes).where('id', '=', id).execute();
}
