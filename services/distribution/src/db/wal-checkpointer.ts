import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's script: a connection of its own to the database that checkpoints every `intervalMs`.
 * PASSIVE copies what it can without waiting for the service's connection, which goes on reading and
 * committing meanwhile. The checkpoint's fsync of the database file is done here too.
 */
const CHECKPOINT_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// SQLite's errors lose their message on the way to the main thread; a plain Error keeps it.
const guarded = (step) => {
  try {
    return step();
  } catch (error) {
    throw new Error(\`\${error.code ?? error.name}: \${error.message}\`);
  }
};
const database = guarded(() => new Database(workerData.file, { fileMustExist: true }));
guarded(() => database.pragma('cache_size = -256'));
let timer;
const checkpoint = () => {
  guarded(() => database.pragma('wal_checkpoint(PASSIVE)'));
  timer = setTimeout(checkpoint, workerData.intervalMs);
};
parentPort.once('message', () => {
  clearTimeout(timer);
  database.close();
  parentPort.close();
});
checkpoint();
`;

export interface WalCheckpointer {
  /** Ends the checkpoints and closes the worker's connection. */
  stop(): Promise<void>;
}

/**
 * Checkpoints SQLite's write-ahead log from a worker thread, so that no commit of the service's
 * connection pays for one: SQLite's automatic checkpoint runs inside the commit that fills the WAL past
 * its limit, copying thousands of pages and syncing the database file on the event loop (7–27 ms, which
 * every lead in flight then waits out). The service's connection must have `wal_autocheckpoint = 0`.
 * `onStopped` hears of a worker that ended other than through stop(), to checkpoint some other way.
 */
export function startWalCheckpointer(
  file: string,
  onStopped: (error: Error) => void,
  intervalMs = 250,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECKPOINT_LOOP, { eval: true, workerData: { file, driver, intervalMs } });
  // The service's shutdown stops it; a process that forgets to must still be able to exit.
  worker.unref();
  let stopping = false;
  let failure: Error | undefined;
  worker.on('error', (error) => {
    failure = error;
  });
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      if (!stopping) onStopped(failure ?? new Error(`the checkpoint worker exited with code ${code}`));
      resolve();
    });
  });
  return {
    async stop() {
      stopping = true;
      // Held until it has exited: what the caller does after stop() must still run.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
