import { setTimeout } from 'node:timers/promises';
import { type CommitDurability, commitDurability } from './commit-durability.js';
import { type Db, isTransientConflict } from './database.js';
import { executeTogether, type PlannedWrite } from './statements-together.js';

/** A write's code, run in the transaction `trx`. */
export type Write<T> = (trx: Db) => Promise<T>;

export interface WriteOptions {
  /**
   * false: the writer goes on once the write is committed, without waiting for the disk; the next write
   * that waits takes it to the disk with its own (see CommitDurability). Only for a write that nothing
   * outside the database relies on until the same caller's next write, which waits.
   */
  waitForDisk?: boolean;
}

interface QueuedWrite {
  write: PlannedWrite<unknown>;
  waitsForDisk: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Enough to amortise a commit; few enough that one slow batch does not hold many leads. */
const MAX_BATCH = 64;
/** Runs of one write alone before a lock conflict is reported. */
const MAX_ATTEMPTS = 5;
/** The longest pause before a write's first rerun after a lock conflict; doubled at each rerun. */
const FIRST_RERUN_PAUSE_MS = 4;

/**
 * Commits the small write transactions that arrive while the event loop turns
 * as one transaction, so that N concurrent leads pay for one commit (one WAL
 * append on SQLite, one log flush on MySQL) instead of N. Each write still
 * commits all or nothing, and a caller hears only of its own failure: when the
 * shared transaction fails, every write of the batch is run again alone.
 *
 * The planned writes of a batch send their statements together, before any
 * write's own code runs: writes of different callers touch different leads, and
 * what they share (cap counters) they change by increments, so their order in
 * the batch changes nothing a caller can see.
 */
export class GroupCommit {
  private queue: QueuedWrite[] = [];
  private flushScheduled = false;

  constructor(
    private readonly db: Db,
    private readonly durability: CommitDurability = commitDurability(db),
  ) {}

  run<T>(write: Write<T> | PlannedWrite<T>, options: WriteOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waitsForDisk = options.waitForDisk ?? true;
      const planned =
        typeof write === 'function' ? { statements: [], finish: (_: unknown, trx: Db) => write(trx) } : write;
      this.queue.push({ write: planned, waitsForDisk, resolve: resolve as (value: unknown) => void, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const batch = this.queue.splice(0, MAX_BATCH);
      if (this.queue.length > 0) this.scheduleFlush();
      void this.commit(batch);
    });
  }

  private async commit(batch: QueuedWrite[]): Promise<void> {
    if (batch.length === 1) return this.commitAlone(batch[0]!);
    let results: unknown[];
    try {
      results = await this.runTogether(batch);
    } catch {
      for (const queued of batch) await this.commitAlone(queued);
      return;
    }
    for (const [index, queued] of batch.entries()) queued.resolve(results[index]);
  }

  /** The writes in one transaction, their results in order; it waits for the disk unless none of them needs to. */
  private runTogether(writes: readonly QueuedWrite[]): Promise<unknown[]> {
    return this.db.transaction().execute(async (trx) => {
      if (writes.every((queued) => !queued.waitsForDisk)) this.durability.syncLater();
      const results = await executeTogether(
        trx,
        writes.flatMap((queued) => queued.write.statements),
      );
      const done: unknown[] = [];
      let next = 0;
      for (const { write } of writes) {
        const own = results.slice(next, next + write.statements.length);
        next += write.statements.length;
        done.push(await write.finish(own, trx));
      }
      return done;
    });
  }

  private async commitAlone(queued: QueuedWrite): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const [result] = await this.runTogether([queued]);
        return queued.resolve(result);
      } catch (error) {
        // Concurrent inserts of one unique key (retries of a lead) can deadlock on InnoDB; the loser runs
        // again after a random pause, so that it does not meet the same writers at the same moment.
        if (!isTransientConflict(error) || attempt >= MAX_ATTEMPTS) return queued.reject(error);
        await setTimeout(Math.random() * FIRST_RERUN_PAUSE_MS * 2 ** (attempt - 1));
      }
    }
  }
}
