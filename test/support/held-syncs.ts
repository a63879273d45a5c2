/** A WAL fsync (SqliteParts.syncWal) that the test completes: while `holding`, each one waits to be resolved. */
export class HeldSyncs {
  readonly pending: { resolve(): void; reject(error: Error): void }[] = [];
  started = 0;
  holding = true;

  readonly sync = () => {
    this.started += 1;
    if (!this.holding) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  /** Completes the fsyncs held so far and holds no more. */
  releaseAll(): void {
    this.holding = false;
    for (const held of this.pending.splice(0)) held.resolve();
  }
}
