import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  MysqlDialect,
  MysqlDriver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type * as Mysql2 from 'mysql2';
import { lazyModule } from '../lazy-module.js';

/** Loaded only when a MySQL URL is given. */
const mysql2 = lazyModule<typeof Mysql2>('mysql2');

/** What mysql2 gives for one statement: its rows, or a write's header. */
export type MysqlStatementResult =
  | unknown[]
  | { affectedRows: number; insertId?: number | string | null; changedRows?: number };

/** One statement's result, as Kysely's MySQL driver gives it. */
export function resultOfStatement(result: MysqlStatementResult): QueryResult<unknown> {
  if (Array.isArray(result)) return { rows: result };
  const { insertId, affectedRows, changedRows } = result;
  return {
    rows: [],
    numAffectedRows: BigInt(affectedRows),
    ...(changedRows === undefined ? {} : { numChangedRows: BigInt(changedRows) }),
    ...(insertId === undefined || insertId === null || String(insertId) === '0' ? {} : { insertId: BigInt(insertId) }),
  };
}

/**
 * A connection whose transaction's BEGIN waits for the first statement and goes in its packet: a round
 * trip less for every transaction, which on MySQL costs more than most of the statements in it.
 */
class DeferredBeginConnection implements DatabaseConnection {
  beginPending = false;

  constructor(readonly pooled: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.beginPending) return this.pooled.executeQuery(query);
    this.beginPending = false;
    const { rows } = await this.pooled.executeQuery(CompiledQuery.raw(`begin;\n${query.sql}`, [...query.parameters]));
    const [, ...results] = rows as MysqlStatementResult[];
    return (results.length === 1 ? resultOfStatement(results[0]!) : { rows: results }) as QueryResult<R>;
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.beginPending) {
      this.beginPending = false;
      await this.pooled.executeQuery(CompiledQuery.raw('begin'));
    }
    yield* this.pooled.streamQuery<R>(query, chunkSize);
  }
}

class DeferredBeginDriver extends MysqlDriver {
  private readonly connections = new WeakMap<DatabaseConnection, DeferredBeginConnection>();

  override async acquireConnection(): Promise<DatabaseConnection> {
    const pooled = await super.acquireConnection();
    let connection = this.connections.get(pooled);
    if (!connection) {
      connection = new DeferredBeginConnection(pooled);
      this.connections.set(pooled, connection);
    }
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const deferred = connection as DeferredBeginConnection;
    // SET TRANSACTION applies to the next BEGIN: both go as Kysely sends them.
    if (settings.isolationLevel || settings.accessMode) return super.beginTransaction(deferred.pooled, settings);
    deferred.beginPending = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.endsUnbegun(connection)) await super.commitTransaction(connection);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.endsUnbegun(connection)) await super.rollbackTransaction(connection);
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { pooled } = connection as DeferredBeginConnection;
    await super.releaseConnection(pooled as Parameters<MysqlDriver['releaseConnection']>[0]);
  }

  /** A transaction that ran no statement never began on the server: there is nothing to end. */
  private endsUnbegun(connection: DatabaseConnection): boolean {
    const deferred = connection as DeferredBeginConnection;
    const unbegun = deferred.beginPending;
    deferred.beginPending = false;
    return unbegun;
  }
}

class DeferredBeginDialect extends MysqlDialect {
  constructor(private readonly pool: Mysql2.Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new DeferredBeginDriver({ pool: this.pool });
  }
}

/** MySQL through a pool of `connectionLimit` connections. */
export function mysqlDialect(databaseUrl: string, connectionLimit: number): MysqlDialect {
  const { createPool } = mysql2();
  return new DeferredBeginDialect(
    createPool({
      uri: databaseUrl,
      connectionLimit,
      // Statements that need none of each other's results go in one packet (executeTogether), and so does
      // a transaction's BEGIN with its first statement. Every value is a bound parameter, escaped by mysql2;
      // no statement is built from text a client sent.
      multipleStatements: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      // BIGINT columns hold epoch ms and cents: well inside the safe integer range.
      typeCast(field, next) {
        if (field.type === 'LONGLONG') {
          const value = field.string();
          return value === null ? null : Number(value);
        }
        return next();
      },
    }),
  );
}
