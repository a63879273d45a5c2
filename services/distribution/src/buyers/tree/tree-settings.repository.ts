import type { Db } from '../../db/database.js';

const ROW_ID = 'tree';

/** The stored settings' JSON (the migration creates the row). */
export async function readTreeSettingsJson(db: Db): Promise<string> {
  const row = await db
    .selectFrom('tree_settings')
    .select('settings')
    .where('id', '=', ROW_ID)
    .executeTakeFirstOrThrow();
  return row.settings;
}

export async function writeTreeSettingsJson(db: Db, json: string, now: number): Promise<void> {
  await db.updateTable('tree_settings').set({ settings: json, updated_at: now }).where('id', '=', ROW_ID).execute();
}
