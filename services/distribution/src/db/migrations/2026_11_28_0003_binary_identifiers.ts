import { type Kysely, MysqlAdapter, sql } from 'kysely';

// Frozen: a migration never changes once released.
// Ids, clickids, key and person hashes, tokens, references and request ids are opaque: two are the same
// only when their bytes are. SQLite compares text so; MySQL by the column's collation, and the defaults
// (utf8mb4_general_ci, utf8mb4_unicode_ci, utf8mb4_0900_ai_ci) ignore case, so a publisher's `ABC-1` and
// `abc-1` were one lead. These columns take the binary collation of their character set (utf8mb4_bin);
// names, reasons, URLs and JSON keep the database's. On SQLite there is nothing to do.
//
// The collation of a column a foreign key joins cannot change under the key (MariaDB refuses even with the
// checks off): the keys are dropped, the columns changed, and the keys added back. Each step skips what is
// already done, so a start that died halfway finishes at the next one, under the migration lock as every
// migration runs.
const BYTE_COMPARED: Record<string, readonly string[]> = {
  publishers: ['id'],
  publisher_keys: ['id', 'publisher_id', 'key_hash'],
  buyers: ['id'],
  buyer_cap_counters: ['buyer_id', 'period'],
  leads: [
    'id',
    'publisher_id',
    'clickid',
    'fingerprint',
    'claim_token',
    'ssn_hash',
    'email_hash',
    'phone_hash',
    'buyer_id',
  ],
  buyer_attempts: ['id', 'lead_id', 'buyer_id', 'reference'],
  sales: ['id', 'lead_id', 'publisher_id', 'buyer_id'],
  ledger_entries: ['id', 'lead_id', 'account'],
  buyer_person_holds: ['buyer_id', 'person', 'lead_id'],
  buyer_cap_holds: ['lead_id', 'buyer_id'],
  lead_posts: ['id', 'lead_id', 'buyer_id', 'reference'],
  key_checks: ['name', 'check_value'],
  tree_settings: ['id'],
  lead_returns: ['id', 'lead_id', 'request_id', 'buyer_id', 'publisher_id'],
  publisher_postbacks: ['publisher_id'],
  publisher_events: ['id', 'publisher_id', 'lead_id', 'lease_token'],
};

/** The foreign keys of the schema (migrations 2026_11_22_0001 and 2026_11_28_0001): each joins two of those columns. */
const FOREIGN_KEYS = [
  { table: 'publisher_keys', column: 'publisher_id', references: 'publishers' },
  { table: 'leads', column: 'publisher_id', references: 'publishers' },
  { table: 'buyer_attempts', column: 'lead_id', references: 'leads' },
  { table: 'sales', column: 'lead_id', references: 'leads' },
  { table: 'ledger_entries', column: 'lead_id', references: 'leads' },
  { table: 'lead_returns', column: 'lead_id', references: 'leads' },
] as const;

type ForeignKey = (typeof FOREIGN_KEYS)[number];

interface StoredColumn {
  table: string;
  column: string;
  /** As the column was declared, e.g. `varchar(128)`. */
  type: string;
  nullable: boolean;
  charset: string;
  collation: string;
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof MysqlAdapter)) return;
  const pending = (await storedColumns(db)).filter(
    (column) => BYTE_COMPARED[column.table]?.includes(column.column) && column.collation !== `${column.charset}_bin`,
  );
  if (pending.length > 0) {
    for (const key of FOREIGN_KEYS) {
      for (const name of await constraintNames(db, key))
        await sql`alter table ${sql.id(key.table)} drop foreign key ${sql.id(name)}`.execute(db);
    }
    // One statement per table: a table is rebuilt once, its indexes with it.
    for (const table of new Set(pending.map((column) => column.table))) {
      const changes = pending.filter((column) => column.table === table).map(binaryColumn);
      await sql`alter table ${sql.id(table)} ${sql.join(changes)}`.execute(db);
    }
  }
  // The values did not change, only how they compare: the keys come back without a scan of every row (and
  // without the table copy MySQL makes to check them), on this connection only.
  const [{ checks }] = (await sql<{ checks: number }>`select @@session.foreign_key_checks as checks`.execute(db)).rows;
  await sql`set session foreign_key_checks = 0`.execute(db);
  try {
    for (const key of FOREIGN_KEYS) {
      if ((await constraintNames(db, key)).length > 0) continue;
      await sql`alter table ${sql.id(key.table)} add foreign key (${sql.id(key.column)}) references ${sql.id(key.references)} (${sql.id('id')})`.execute(
        db,
      );
    }
  } finally {
    await sql`set session foreign_key_checks = ${sql.lit(Number(checks))}`.execute(db);
  }
}

async function storedColumns(db: Kysely<any>): Promise<StoredColumn[]> {
  const { rows } = await sql<{
    table_name: string;
    column_name: string;
    column_type: string;
    is_nullable: string;
    character_set_name: string;
    collation_name: string;
  }>`select table_name as table_name, column_name as column_name, column_type as column_type,
       is_nullable as is_nullable, character_set_name as character_set_name, collation_name as collation_name
     from information_schema.columns
     where table_schema = database() and collation_name is not null`.execute(db);
  return rows.map((row) => ({
    table: row.table_name,
    column: row.column_name,
    type: row.column_type,
    nullable: row.is_nullable === 'YES',
    charset: row.character_set_name,
    collation: row.collation_name,
  }));
}

/** The column as it is, in its own character set, compared by that set's binary collation. */
function binaryColumn(column: StoredColumn) {
  const definition = `${column.type} character set ${column.charset} collate ${column.charset}_bin`;
  return sql`modify ${sql.id(column.column)} ${sql.raw(definition)} ${sql.raw(column.nullable ? 'null' : 'not null')}`;
}

/** The names of the foreign keys from key.table's column to its parent's id: none once dropped. */
async function constraintNames(db: Kysely<any>, key: ForeignKey): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select constraint_name as name
     from information_schema.key_column_usage
     where table_schema = database() and table_name = ${key.table} and column_name = ${key.column}
       and referenced_table_name = ${key.references} and referenced_column_name = 'id'`.execute(db);
  return rows.map((row) => row.name);
}
