import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuyerService } from '@leadflow/distribution/src/buyers/buyer.service';
import { EnvironmentValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import type {
  BuyerCallResult,
  BuyerReply,
  callBuyer,
  LeadForBuyer,
} from '@leadflow/distribution/src/buyers/integration/buyer-call';
import { registerCommitDurability } from '@leadflow/distribution/src/db/commit-durability';
import { type Db, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { GroupCommit } from '@leadflow/distribution/src/db/group-commit';
import type { Database } from '@leadflow/distribution/src/db/schema';
import { sqliteDialect } from '@leadflow/distribution/src/db/sqlite-dialect';
import type { FileSync } from '@leadflow/distribution/src/db/wal-sync';
import { IntakeService } from '@leadflow/distribution/src/intake/intake.service';
import { DistributionMetrics } from '@leadflow/distribution/src/observability/metrics';
import { PublisherService } from '@leadflow/distribution/src/publishers/publisher.service';
import type { KeyedHasher } from '@leadflow/distribution/src/security/keyed-hash';
import { CircuitBreakers, DEFAULT_CIRCUIT_BREAKER } from '@leadflow/distribution/src/selling/circuit-breaker';
import { PingTreeSeller } from '@leadflow/distribution/src/selling/ping-tree';
import { trace } from '@opentelemetry/api';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { pino } from 'pino';
import { parse } from 'yaml';
import { buyerFixture } from './buyer-fixtures.js';
import { testKeyRing } from './key-ring.js';

/*
 * The selling engine in this process, without a server: intake, buyers and the ping tree over an
 * in-memory SQLite database (or an on-disk one, EngineOptions.syncWal), and buyers played by functions
 * instead of HTTP servers. Buyer files are YAML fixtures under test/fixtures/buyers/.
 */

/** What a played buyer answers a ping or a post with; 'timeout' is no whole answer in time. */
export type PlayedAnswer = Pick<BuyerReply, 'outcome' | 'priceCents' | 'reference' | 'reason'> | 'timeout';

export type PlayedBuyer = (kind: 'ping' | 'post' | 'statusLookup', lead: LeadForBuyer) => PlayedAnswer;

export interface BuyerCall {
  url: string;
  kind: 'ping' | 'post' | 'statusLookup';
  lead: LeadForBuyer;
}

/** Buyers by the URL of their exchanges; an URL nobody plays answers with an HTTP error. */
export class PlayedBuyers {
  readonly calls: BuyerCall[] = [];
  private readonly buyers = new Map<string, PlayedBuyer>();

  on(url: string, buyer: PlayedBuyer): void {
    this.buyers.set(url, buyer);
  }

  /** The calls to one URL, in order. */
  to(url: string): BuyerCall[] {
    return this.calls.filter((call) => call.url === url);
  }

  readonly call: typeof callBuyer = async (exchange, _integration, lead, options) => {
    this.calls.push({ url: exchange.url, kind: options.kind, lead });
    const answer = this.buyers.get(exchange.url)?.(options.kind, lead) ?? { outcome: 'error', reason: 'no such buyer' };
    if (answer === 'timeout')
      return { reply: { outcome: 'error', error: 'timeout' }, httpStatus: null, latencyMs: 1, outcome: 'timeout' };
    const result: BuyerCallResult = { reply: answer, httpStatus: 200, latencyMs: 1, outcome: answer.outcome };
    return result;
  };
}

export interface InMemoryEngine {
  db: Db;
  intake: IntakeService;
  buyers: PlayedBuyers;
  /** The keyed hasher the intake fingerprints leads with. */
  hasher: KeyedHasher;
  /** Applies test/fixtures/buyers/NAME.yaml; buyer name -> id. */
  applyBuyers(fixture: string): Promise<Record<string, string>>;
  /** A new publisher's key. */
  publisherKey(): Promise<string>;
  close(): Promise<void>;
}

export interface EngineOptions {
  sellDeadlineMs?: number;
  /**
   * The store as the service runs it instead of in memory: SQLite in a directory of its own, each commit
   * waiting for this fsync of its write-ahead log unless its write need not (GroupCommit's waitForDisk).
   */
  syncWal?: FileSync;
}

/** The engine's database: in memory, or on disk with its WAL synced through `syncWal`. */
function engineDatabase(syncWal: FileSync | undefined): { db: Db; writes: GroupCommit; remove(): void } {
  if (!syncWal) {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
    return { db, writes: new GroupCommit(db), remove: () => undefined };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'leadflow-engine-'));
  const dialect = sqliteDialect(dir, { syncWal });
  const db = new Kysely<Database>({ dialect });
  // As createDatabase does: the engine's writes that need not wait for the disk say so to this dialect.
  registerCommitDurability(db, dialect);
  return { db, writes: new GroupCommit(db, dialect), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function inMemoryEngine(options: EngineOptions = {}): Promise<InMemoryEngine> {
  const { db, writes, remove } = engineDatabase(options.syncWal);
  const ring = testKeyRing();
  await migrateToLatest(db, ring);
  const logger = pino({ level: 'silent' });
  const tracer = trace.getTracer('leadflow-unit');
  const buyerService = new BuyerService(db, logger, new EnvironmentValues());
  const played = new PlayedBuyers();
  const breakers = new CircuitBreakers(DEFAULT_CIRCUIT_BREAKER);
  const publishers = new PublisherService(db);
  const seller = new PingTreeSeller({
    db,
    writes,
    buyers: buyerService,
    breakers,
    tracer,
    call: played.call,
    random: () => 0,
  });
  const intake = new IntakeService({
    db,
    writes,
    publishers,
    buyers: buyerService,
    seller,
    cipher: ring.cipher,
    hasher: ring.hasher,
    sellDeadlineMs: options.sellDeadlineMs ?? 2000,
    tracer,
    logger,
    metrics: new DistributionMetrics(() => breakers.states()),
  });
  return {
    db,
    intake,
    buyers: played,
    hasher: ring.hasher,
    async applyBuyers(fixture) {
      const document = parse(buyerFixture(`${fixture}.yaml`), { merge: true });
      const result = await buyerService.apply(JSON.stringify(document), false);
      if (!result.ok) throw new Error(`${fixture}.yaml: ${JSON.stringify(result.errors)}`);
      return Object.fromEntries(result.buyers.map((buyer) => [buyer.name, buyer.id]));
    },
    async publisherKey() {
      return (await publishers.create({ name: 'unit publisher' })).key;
    },
    async close() {
      await db.destroy();
      remove();
    },
  };
}
