import { CompiledQuery, type DialectAdapter, type Insertable } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

// Kysely parses and compiles an insert anew at every call, which for the inserts every lead makes cost
// more than running them. Their SQL depends only on the dialect, the table, the columns and the number
// of rows: Kysely compiles each such shape once, and the SQL is reused with the new values.
const shapesByDialect = new WeakMap<DialectAdapter, Map<string, Shape[]>>();
/** Shapes per table are few (row counts up to the buyers of a lead); cleared should they not be. */
const MAX_SHAPES_PER_TABLE = 500;

interface Shape {
  rows: number;
  columns: readonly string[];
  sql: string;
}

/**
 * Inserts rows into table: all with the same columns in the same order, as one statement. Rows of
 * another kind (differing columns, an undefined or an SQL expression as a value) go through Kysely as usual.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  const insert = rowsInsert(db, table, rows);
  if (insert) await db.executeQuery(insert);
}

/** The insert of `rows` into `table`, to run with others (`executeTogether`); none for no rows. */
export function rowsInsert<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): CompiledQuery | undefined {
  if (rows.length === 0) return undefined;
  const columns = Object.keys(rows[0]!);
  const parameters = parametersOf(rows as readonly Record<string, unknown>[], columns);
  const shapes = shapesOf(db.getExecutor().adapter, table);
  const known = parameters && shapes.find((shape) => shape.rows === rows.length && sameValues(shape.columns, columns));
  if (parameters && known) return CompiledQuery.raw(known.sql, parameters);
  const compiled = db
    .insertInto(table)
    .values(rows as Insertable<Database[T]>[])
    .compile();
  // Kept only once Kysely is seen to bind exactly these values in this order.
  if (parameters && sameValues(compiled.parameters, parameters)) {
    if (shapes.length >= MAX_SHAPES_PER_TABLE) shapes.length = 0;
    shapes.push({ rows: rows.length, columns, sql: compiled.sql });
  }
  return compiled;
}

function shapesOf(adapter: DialectAdapter, table: string): Shape[] {
  let tables = shapesByDialect.get(adapter);
  if (!tables) {
    tables = new Map();
    shapesByDialect.set(adapter, tables);
  }
  let shapes = tables.get(table);
  if (!shapes) {
    shapes = [];
    tables.set(table, shapes);
  }
  return shapes;
}

/** The values row by row in column order; undefined when a row differs in its columns or holds a non-value. */
function parametersOf(rows: readonly Record<string, unknown>[], columns: readonly string[]): unknown[] | undefined {
  const parameters: unknown[] = [];
  for (const row of rows) {
    const keys = Object.keys(row);
    if (keys.length !== columns.length) return undefined;
    for (let i = 0; i < columns.length; i += 1) {
      if (keys[i] !== columns[i]) return undefined;
      const value = row[keys[i]!];
      if (!isPlainValue(value)) return undefined;
      parameters.push(value);
    }
  }
  return parameters;
}

function isPlainValue(value: unknown): boolean {
  if (value === null) return true;
  const type = typeof value;
  return (
    type === 'string' ||
    type === 'number' ||
    type === 'boolean' ||
    type === 'bigint' ||
    value instanceof Date ||
    Buffer.isBuffer(value)
  );
}

function sameValues(bound: readonly unknown[], values: readonly unknown[]): boolean {
  return bound.length === values.length && bound.every((value, index) => value === values[index]);
}
