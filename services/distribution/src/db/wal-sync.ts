import { type FileHandle, open } from 'node:fs/promises';
import type { DiskWaits } from './commit-durability.js';

/** Flushes a file to disk: fsync through the thread pool, not on the event loop. */
export type FileSync = () => Promise<void>;

/**
 * Syncs SQLite's write-ahead log to disk off the event loop. With `synchronous = NORMAL` a commit only
 * writes its pages to the WAL; every caller whose commit must survive power loss awaits sync() before it
 * goes on. Callers that ask while an fsync runs share the next one: that fsync began after their commit,
 * so it covers it, and it covers every commit made while the one before ran.
 */
export class WalSync {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** Counted since start. */
  readonly diskWaits: DiskWaits = { waits: 0, syncs: 0 };
  private readonly syncObservers: ((seconds: number) => void)[] = [];

  constructor(private readonly syncFile: FileSync) {}

  sync(): Promise<void> {
    this.diskWaits.waits += 1;
    if (!this.running) return this.start();
    this.queued ??= this.running
      // That sync's failure is its own committers' to report; the next one syncs what it did not.
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  /** `observe` hears how long each fsync took, once it has ended (failed or not). */
  timeSyncs(observe: (seconds: number) => void): void {
    this.syncObservers.push(observe);
  }

  private start(): Promise<void> {
    this.diskWaits.syncs += 1;
    const started = performance.now();
    const running = this.syncFile().finally(() => {
      if (this.running === running) this.running = undefined;
      const seconds = (performance.now() - started) / 1000;
      for (const observe of this.syncObservers) observe(seconds);
    });
    this.running = running;
    return running;
  }
}

/**
 * fsync of the file at `file`, opened on first use and kept open (fsync reaches the file's data whatever
 * descriptor asks). A file not there yet holds nothing to sync. close() gives the descriptor back.
 */
export function fileSync(file: string): { sync: FileSync; close(): Promise<void> } {
  let handle: Promise<FileHandle | undefined> | undefined;
  const opened = () => {
    handle ??= open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      handle = undefined;
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return handle;
  };
  return {
    sync: async () => {
      await (await opened())?.sync();
    },
    close: async () => {
      const closing = handle;
      handle = undefined;
      // A file that never opened has nothing to close; its open's failure went to the sync that asked.
      await (await closing?.catch(() => undefined))?.close();
    },
  };
}
