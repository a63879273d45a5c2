import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  credentials,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { unary } from '@leadflow/distribution/src/grpc/unary';
import { createLogger } from '@leadflow/service-kit/logger';
import { readRichStatus, retryDelayMs } from '@leadflow/service-kit/rich-status';
import { trace } from '@opentelemetry/api';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()),
};
const SERVICE: ServiceDefinition = {
  Store: {
    path: '/test.Busy/Store',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
  Fail: {
    path: '/test.Busy/Fail',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};

/** A real SQLITE_BUSY_SNAPSHOT: a read snapshot another connection's commit made stale, then a write. */
function busySnapshotError(file: string): unknown {
  const reader = new SqliteDatabase(file);
  const writer = new SqliteDatabase(file);
  try {
    reader.pragma('journal_mode = WAL');
    reader.exec('CREATE TABLE t (x INTEGER)');
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    writer.exec('INSERT INTO t VALUES (1)');
    reader.exec('INSERT INTO t VALUES (2)');
    return undefined;
  } catch (error) {
    return error;
  } finally {
    reader.close();
    writer.close();
  }
}

describe('a busy SQLite over gRPC', () => {
  let dir: string;
  let server: Server;
  let client: InstanceType<ReturnType<typeof makeGenericClientConstructor>>;
  let thrown: unknown;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'leadflow-busy-'));
    thrown = busySnapshotError(path.join(dir, 'busy.sqlite'));
    server = new Server();
    server.addService(SERVICE, {
      Store: unary('Store', trace.getTracer('test'), createLogger('test', 'silent'), async () => {
        throw thrown;
      }),
      Fail: unary('Fail', trace.getTracer('test'), createLogger('test', 'silent'), async () => {
        throw new Error('SELECT * FROM leads WHERE ssn = 219099999');
      }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    client = new (makeGenericClientConstructor(SERVICE, 'Busy'))(`127.0.0.1:${port}`, credentials.createInsecure());
  });
  after(async () => {
    client?.close();
    server?.forceShutdown();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers UNAVAILABLE (retry) for SQLITE_BUSY_SNAPSHOT, as for SQLITE_BUSY', async () => {
    expect((thrown as { code?: string }).code).to.equal('SQLITE_BUSY_SNAPSHOT');
    const store = client as unknown as { Store(request: object, callback: (error: ServiceError) => void): void };
    const failure = await new Promise<ServiceError>((resolve) => store.Store({}, resolve));
    expect(failure.code).to.equal(status.UNAVAILABLE);
    expect(failure.details).to.equal('storage is unavailable: retry');
    const details = readRichStatus(failure.metadata)!;
    expect(details.errorInfo).to.include({ reason: 'STORAGE_UNAVAILABLE', domain: 'leadflow.io' });
    expect(retryDelayMs(details.retryInfo!)).to.equal(1000);
  });

  it('answers any other failure INTERNAL with ErrorInfo and nothing of the failure itself', async () => {
    const fail = client as unknown as { Fail(request: object, callback: (error: ServiceError) => void): void };
    const failure = await new Promise<ServiceError>((resolve) => fail.Fail({}, resolve));
    expect(failure.code).to.equal(status.INTERNAL);
    expect(failure.details).to.equal('internal error');
    expect(readRichStatus(failure.metadata)!.errorInfo).to.include({ reason: 'INTERNAL', domain: 'leadflow.io' });
    expect(JSON.stringify(failure.metadata.toJSON())).to.not.include('219099999');
  });
});
