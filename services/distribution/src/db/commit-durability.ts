/**
 * When a committer hears that its commit is done. On SQLite, only once the write-ahead log holding it is
 * synced (sqlite-dialect.ts), unless the transaction calls `syncLater`: its committer then goes on at
 * once, and the commit reaches the disk with the next one whose committer waits (the log is written in
 * order, so that fsync covers it). On MySQL every commit is on disk when the server answers it, and
 * `syncLater` changes nothing.
 */
export interface CommitDurability {
  /** Called inside a transaction, while it holds the connection. */
  syncLater(): void;
  /** How often committers waited for the disk, and the fsyncs that served them; none on MySQL. */
  diskWaits?(): DiskWaits;
  /** `observe` hears how long each of those fsyncs took; none on MySQL. */
  timeSyncs?(observe: (seconds: number) => void): void;
}

/** Counted since the store opened. */
export interface DiskWaits {
  /** Commits whose committer waited for the disk before going on. */
  waits: number;
  /** The fsyncs that served them: one serves every commit made while the one before ran. */
  syncs: number;
}

const EVERY_COMMIT_WAITS: CommitDurability = { syncLater: () => undefined };

const durabilityByDatabase = new WeakMap<object, CommitDurability>();

/** Says how the commits of `db` (a Kysely instance) reach the disk, for commitDurability. */
export function registerCommitDurability(db: object, durability: CommitDurability): void {
  durabilityByDatabase.set(db, durability);
}

/** How the commits of `db` reach the disk: every commit waits unless its dialect said otherwise. */
export function commitDurability(db: object): CommitDurability {
  return durabilityByDatabase.get(db) ?? EVERY_COMMIT_WAITS;
}
