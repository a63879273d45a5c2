import { CompiledQuery, MysqlAdapter, type QueryResult } from 'kysely';
import type { Db } from './database.js';
import { type MysqlStatementResult, resultOfStatement } from './mysql-dialect.js';

/** A statement's result; undefined for a statement that may be left out. */
type ResultOf<S> = S extends CompiledQuery<infer R> ? QueryResult<R> : undefined;

type Statements = readonly (CompiledQuery<unknown> | undefined)[];

type Results<T extends Statements> = { [K in keyof T]: ResultOf<T[K]> };

/**
 * Runs statements that need none of each other's results, in order, and gives each one's result (nothing
 * for a statement left undefined). On MySQL they go as one multi-statement packet: one round trip instead
 * of one each, which is most of what a small statement costs there. The first statement that fails fails
 * the call and the statements after it do not run; in a transaction, its rollback undoes those before.
 */
export async function executeTogether<const T extends Statements>(db: Db, statements: T): Promise<Results<T>> {
  const given = statements.filter((statement) => statement !== undefined);
  const results: (QueryResult<unknown> | undefined)[] = [];
  if (given.length > 1 && db.getExecutor().adapter instanceof MysqlAdapter) {
    const packet = CompiledQuery.raw(
      given.map((statement) => statement.sql).join(';\n'),
      given.flatMap((statement) => statement.parameters),
    );
    const { rows } = await db.executeQuery(packet);
    let next = 0;
    for (const statement of statements) {
      results.push(statement && resultOfStatement(rows[next++] as MysqlStatementResult));
    }
  } else {
    for (const statement of statements) results.push(statement && (await db.executeQuery(statement)));
  }
  return results as Results<T>;
}

/**
 * A write whose first statements are known before it runs. The group commit sends those of every planned
 * write in a batch together (on MySQL, one packet for the whole batch), then runs each one's `finish`, in
 * the same transaction, with its own statements' results: one round trip for the batch instead of one or
 * more for each of its writes.
 */
export interface PlannedWrite<T> {
  readonly statements: Statements;
  finish(results: readonly (QueryResult<unknown> | undefined)[], trx: Db): T | Promise<T>;
}

/** A planned write of `statements`, whose results `finish` gets in their order and types. */
export function plannedWrite<const S extends Statements, T>(
  statements: S,
  finish: (results: Results<S>, trx: Db) => T | Promise<T>,
): PlannedWrite<T> {
  return { statements, finish: finish as PlannedWrite<T>['finish'] };
}

/** Runs a planned write on its own, in the transaction `trx`. */
export async function runPlanned<T>(trx: Db, write: PlannedWrite<T>): Promise<T> {
  return write.finish(await executeTogether(trx, write.statements), trx);
}
