const INITIAL_CAPACITY = 4;

/**
 * Timestamps in the order they were pushed, in a ring buffer that grows by doubling.
 * The local limiter pushes only while fewer than `limit` timestamps are held, so a
 * bucket's buffer never grows past the next power of two above its limit.
 */
export class TimestampQueue {
  private slots = new Float64Array(INITIAL_CAPACITY);
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The i-th oldest timestamp (0 = oldest); i must be below size. */
  at(index: number): number {
    return this.slots[(this.head + index) % this.slots.length];
  }

  newest(): number {
    return this.at(this.count - 1);
  }

  push(timestamp: number): void {
    if (this.count === this.slots.length) this.grow();
    this.slots[(this.head + this.count) % this.slots.length] = timestamp;
    this.count += 1;
  }

  /** Drops the timestamps at or before `cutoff` from the old end. */
  dropThrough(cutoff: number): void {
    while (this.count > 0 && this.slots[this.head] <= cutoff) {
      this.head = (this.head + 1) % this.slots.length;
      this.count -= 1;
    }
  }

  private grow(): void {
    const larger = new Float64Array(this.slots.length * 2);
    for (let i = 0; i < this.count; i += 1) larger[i] = this.at(i);
    this.slots = larger;
    this.head = 0;
  }
}
