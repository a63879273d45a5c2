/*
 * How long a tier waits for bids. A fixed window (the buyers document's `tree`, else
 * LEADFLOW_PING_WINDOW_MS) is the operator's; without one, the window is a share of the time left,
 * shortened to what the bidders' own recent answer times need: a bidder that answers in 200 ms at its
 * 95th percentile does not need a 500 ms window, and one whose pings often hang no longer holds every
 * sale for its whole timeout.
 */

/**
 * Without a configured window, a tier's pings get at most this share of the time left (300 ms of a 2 s
 * budget); posts get the rest.
 */
const DEFAULT_PING_WINDOW_SHARE = 0.15;
/** A buyer's answer time is learned from this many of its most recent answered pings. */
const RECENT_PINGS = 100;
/** Answered pings a buyer needs before its learned answer time bounds the window. */
export const MIN_LEARNED_PINGS = 10;
/**
 * The learned window waits this much longer than the slowest bidder's 95th percentile: a bid past the
 * window is lost for the sale, but every millisecond of the window is one less for the posts, where a
 * slow buyer's answer must fit.
 */
const LEARNED_MARGIN = 1.25;
const LEARNED_QUANTILE = 0.95;

/** A buyer's recent ping answer times, in arrival order and sorted, and whether its recent pings were answered. */
interface RecentPings {
  arrived: number[];
  sorted: number[];
  answered: boolean[];
}

/**
 * Each buyer's recent ping answer times (bids and no-bids alike; timeouts and errors are no answer).
 * Every lead asks for the quantile of every bidder and every answer changes one: the times are kept
 * sorted as they come, so neither sorts.
 */
export class PingLatencies {
  private readonly recent = new Map<string, RecentPings>();

  record(buyerId: string, latencyMs: number): void {
    const pings = this.pingsOf(buyerId);
    this.recordAnswered(pings, true);
    pings.arrived.push(latencyMs);
    insertSorted(pings.sorted, latencyMs);
    if (pings.arrived.length > RECENT_PINGS) removeSorted(pings.sorted, pings.arrived.shift()!);
  }

  /** A ping of the buyer that was not answered (a timeout, an error): how often it hangs. */
  recordNoAnswer(buyerId: string): void {
    this.recordAnswered(this.pingsOf(buyerId), false);
  }

  /** The buyer's recent answer times, sorted; undefined before MIN_LEARNED_PINGS answers. */
  answerTimesMs(buyerId: string): readonly number[] | undefined {
    const sorted = this.recent.get(buyerId)?.sorted;
    return sorted && sorted.length >= MIN_LEARNED_PINGS ? sorted : undefined;
  }

  /** The share of the buyer's recent pings that were answered; 1 before any. */
  answerRate(buyerId: string): number {
    const answered = this.recent.get(buyerId)?.answered ?? [];
    return answered.length === 0 ? 1 : answered.filter(Boolean).length / answered.length;
  }

  private pingsOf(buyerId: string): RecentPings {
    let pings = this.recent.get(buyerId);
    if (!pings) {
      pings = { arrived: [], sorted: [], answered: [] };
      this.recent.set(buyerId, pings);
    }
    return pings;
  }

  private recordAnswered(pings: RecentPings, answered: boolean): void {
    pings.answered.push(answered);
    if (pings.answered.length > RECENT_PINGS) pings.answered.shift();
  }

  /** Every buyer with a learned answer time, and that time. */
  *all(): Iterable<[string, number]> {
    for (const buyerId of this.recent.keys()) {
      const p95 = this.p95Ms(buyerId);
      if (p95 !== undefined) yield [buyerId, p95];
    }
  }

  /** The 95th percentile of the buyer's recent answer times; undefined before MIN_LEARNED_PINGS answers. */
  p95Ms(buyerId: string): number | undefined {
    const sorted = this.answerTimesMs(buyerId);
    if (!sorted) return undefined;
    return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * LEARNED_QUANTILE) - 1)];
  }
}

/** Adds value to sorted, in its place. */
export function insertSorted(sorted: number[], value: number): void {
  sorted.splice(insertionIndex(sorted, value), 0, value);
}

/** Takes one value equal to value out of sorted. */
export function removeSorted(sorted: number[], value: number): void {
  sorted.splice(insertionIndex(sorted, value), 1);
}

/** The first index of sorted holding a value not below value. */
function insertionIndex(sorted: readonly number[], value: number): number {
  let [low, high] = [0, sorted.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

export interface PingWindowInput {
  /** The tier's window as the tree's settings or the environment set it, if they do. */
  configuredMs: number | undefined;
  /** Until the sale's deadline. */
  leftMs: number;
  /** Per pinged buyer: its ping timeout, and its learned 95th percentile answer time if any. */
  bidders: readonly { timeoutMs: number; p95Ms: number | undefined }[];
}

/**
 * The configured window, else DEFAULT_PING_WINDOW_SHARE of the time left, cut to LEARNED_MARGIN times
 * the slowest bidder's learned 95th percentile (a bidder without figures counts with its timeout);
 * never longer than the slowest ping may take, nor than the time left.
 */
export function pingWindowMs({ configuredMs, leftMs, bidders }: PingWindowInput): number {
  const slowestTimeout = Math.max(0, ...bidders.map((bidder) => bidder.timeoutMs));
  const learned = Math.max(
    0,
    ...bidders.map((bidder) => (bidder.p95Ms === undefined ? bidder.timeoutMs : bidder.p95Ms * LEARNED_MARGIN)),
  );
  const window = configuredMs ?? Math.min(leftMs * DEFAULT_PING_WINDOW_SHARE, learned);
  return Math.max(0, Math.min(window, slowestTimeout, leftMs));
}
