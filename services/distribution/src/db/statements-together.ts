import { CompiledQuery, MysqlAdapter, type QueryResult } from 'kysely';
import type { Db } from './database.js';
import { type MysqlStatementResult, resultOfStatement } from './mysql-dialect.js';

/** A statement's result; undefined for a statement that may be left out. */
type ResultOf<S> = S extends CompiledQuery<infer R> ? QueryResult<R> : undefined;

type Statements = readonly (CompiledQuery<unknown> | undefined)[];

type Results<T extends Statements> = { [K in keyof T]: ResultOf<T[K]> };

/**
 * Runs statements that need none of each other's results, in order, and gives each one's result (nothing
 * for a statement left undefined). On MySQL they go as multi-statement packets: one round trip instead
 * of one each, which is most of what a small statement costs there. The first statement that fails fails
 * the call and the statements after it do not run; in a transaction, its rollback undoes those before.
 */
export async function executeTogether<const T extends Statements>(db: Db, statements: T): Promise<Results<T>> {
  const given = statements.filter((statement) => statement !== undefined);
  const results: (QueryResult<unknown> | undefined)[] = [];
  if (given.length > 1 && db.getExecutor().adapter instanceof MysqlAdapter) {
    const done = await executeInPackets(db, given);
    let next = 0;
    for (const statement of statements) results.push(statement && done[next++]);
  } else {
    for (const statement of statements) results.push(statement && (await db.executeQuery(statement)));
  }
  return results as Results<T>;
}

/**
 * A packet's size, as estimated by packetSize: well under the smallest default of MySQL's
 * max_allowed_packet (4 MiB), above which the server closes the connection.
 */
const MAX_PACKET_BYTES = 1024 * 1024;

async function executeInPackets(
  db: Db,
  statements: readonly CompiledQuery<unknown>[],
): Promise<QueryResult<unknown>[]> {
  const results: QueryResult<unknown>[] = [];
  for (const packet of packetsOf(statements)) {
    if (packet.length === 1) {
      results.push(await db.executeQuery(packet[0]!));
      continue;
    }
    const { rows } = await db.executeQuery(
      CompiledQuery.raw(
        packet.map((statement) => statement.sql).join(';\n'),
        packet.flatMap((statement) => statement.parameters),
      ),
    );
    for (const row of rows) results.push(resultOfStatement(row as MysqlStatementResult));
  }
  return results;
}

/** The statements in order, in packets of at most MAX_PACKET_BYTES (a larger statement alone). */
function packetsOf(statements: readonly CompiledQuery<unknown>[]): CompiledQuery<unknown>[][] {
  const packets: CompiledQuery<unknown>[][] = [];
  let packet: CompiledQuery<unknown>[] = [];
  let bytes = 0;
  for (const statement of statements) {
    const size = packetSize(statement);
    if (packet.length > 0 && bytes + size > MAX_PACKET_BYTES) {
      packets.push(packet);
      packet = [];
      bytes = 0;
    }
    packet.push(statement);
    bytes += size;
  }
  if (packet.length > 0) packets.push(packet);
  return packets;
}

/** An upper bound of a statement's bytes on the wire: a character is at most 3 UTF-8 bytes, a byte 2 in hex. */
function packetSize(statement: CompiledQuery<unknown>): number {
  let bytes = statement.sql.length;
  for (const value of statement.parameters) {
    if (typeof value === 'string') bytes += value.length * 3 + 2;
    else if (Buffer.isBuffer(value)) bytes += value.length * 2 + 3;
    else bytes += 24;
  }
  return bytes;
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
