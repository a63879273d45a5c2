import { type Compilable, CompiledQuery, type DialectAdapter, type QueryResult } from 'kysely';
import type { Db } from './database.js';

type Scalar = string | number | bigint | boolean | null | undefined;

/** A query's values by name: each a value, or an object of values (an update's row). */
export type QueryValues = Record<string, Scalar | Record<string, Scalar>>;

interface Shape {
  sql: string;
  parameters: readonly unknown[];
  /** Where each value goes among the parameters: its index, and its name (and key, in an object). */
  slots: readonly { index: number; name: string; key?: string }[];
}

/** Shapes per query are few (the combinations of an update's columns); cleared should they not be. */
const MAX_SHAPES = 64;

/**
 * A query that every lead runs, compiled by Kysely once per dialect and shape instead of at every run,
 * where building and compiling it cost more than running it. `build` makes the query from its values and
 * must use them as values only (never branch on them): it is called once with placeholders in their
 * places, and at each run the values are bound where the placeholders came out among the parameters.
 * The shape is which values are given (an undefined one is left out, as Kysely leaves it out of an
 * update). A query whose placeholders do not come out one for one is compiled at every run, as before.
 */
export class ReusableQuery<V extends QueryValues, R> {
  private readonly shapes = new WeakMap<DialectAdapter, Map<string, Shape | null>>();

  constructor(private readonly build: (db: Db, values: V) => Compilable<R>) {}

  execute(db: Db, values: V): Promise<QueryResult<R>> {
    return db.executeQuery(this.compile(db, values));
  }

  /** The query with `values` bound, to run with others (`executeTogether`). */
  compile(db: Db, values: V): CompiledQuery<R> {
    const adapter = db.getExecutor().adapter;
    let shapes = this.shapes.get(adapter);
    if (!shapes) {
      shapes = new Map();
      this.shapes.set(adapter, shapes);
    }
    const key = shapeKey(values);
    let shape = shapes.get(key);
    if (shape === undefined) {
      shape = this.compileShape(db, values);
      if (shapes.size >= MAX_SHAPES) shapes.clear();
      shapes.set(key, shape);
    }
    if (shape === null) return this.build(db, values).compile();
    const parameters = [...shape.parameters];
    for (const slot of shape.slots) {
      const value = values[slot.name];
      parameters[slot.index] = slot.key === undefined ? value : (value as Record<string, Scalar>)[slot.key];
    }
    return CompiledQuery.raw(shape.sql, parameters) as CompiledQuery<R>;
  }

  private compileShape(db: Db, values: V): Shape | null {
    const placeholders: Record<string, unknown> = {};
    const named = new Map<string, { name: string; key?: string }>();
    const placeholder = (name: string, key?: string) => {
      const text = `\u0000leadflow:${named.size}`;
      named.set(text, { name, key });
      return text;
    };
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (isRow(value)) {
        const row: Record<string, unknown> = {};
        for (const [key, column] of Object.entries(value)) if (column !== undefined) row[key] = placeholder(name, key);
        placeholders[name] = row;
      } else {
        placeholders[name] = placeholder(name);
      }
    }
    const compiled = this.build(db, placeholders as V).compile();
    const slots: Shape['slots'][number][] = [];
    for (const [index, parameter] of compiled.parameters.entries()) {
      const slot = typeof parameter === 'string' ? named.get(parameter) : undefined;
      if (slot) slots.push({ index, ...slot });
    }
    const found = new Set(compiled.parameters.filter((parameter) => named.has(parameter as string)));
    const oneForOne = slots.length === named.size && found.size === named.size;
    return oneForOne && !compiled.sql.includes('\u0000')
      ? { sql: compiled.sql, parameters: compiled.parameters, slots }
      : null;
  }
}

function isRow(value: Scalar | Record<string, Scalar>): value is Record<string, Scalar> {
  return typeof value === 'object' && value !== null;
}

/** Which values are given: names, and the keys of a row. */
function shapeKey(values: QueryValues): string {
  let key = '';
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    key += `${name};`;
    if (isRow(value)) for (const [column, given] of Object.entries(value)) if (given !== undefined) key += `${column},`;
  }
  return key;
}
