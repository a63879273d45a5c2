export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** How many of a buyer's latest calls the failure share is taken over. */
  windowSize: number;
  /** Failed calls in the window below which the circuit never opens, whatever their share. */
  minFailures: number;
  /** Share of the window's calls (0..1) that failed at or above which the circuit opens. */
  failureShare: number;
  /** The first pause; each failed probe doubles it, up to maxPauseMs. */
  firstPauseMs: number;
  maxPauseMs: number;
  now?: () => number;
}

/**
 * As the service runs: a buyer is paused when at least 5 of its last 20 calls failed and they are 60% of
 * them. A buyer that fails a quarter of its calls (a lender whose pings hang now and then) stays in the
 * auction, where the ping window stops waiting for it; a dead one is paused after its fifth failure. A
 * pause costs a buyer that recovered only a few seconds, and grows while its probes keep failing.
 * Failures count by episode: a failed call that was already out when the last counted one failed adds
 * nothing (see recordFailure).
 */
export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerOptions = {
  windowSize: 20,
  minFailures: 5,
  failureShare: 0.6,
  firstPauseMs: 5_000,
  maxPauseMs: 60_000,
};

interface BuyerCircuit {
  /** Latest calls last; true for a failure. */
  recent: boolean[];
  /** When the last failure that counted was recorded. */
  lastFailureAt: number | undefined;
  openedAt: number | undefined;
  pauseMs: number;
  probing: boolean;
}

/**
 * Per-buyer circuit breakers of this process: a buyer whose calls mostly fail (errors, timeouts) is
 * paused so that leads stop waiting on it, then probed with one call; a success closes it again.
 */
export class CircuitBreakers {
  private readonly circuits = new Map<string, BuyerCircuit>();
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  state(buyerId: string): CircuitState {
    const circuit = this.circuits.get(buyerId);
    if (!circuit || circuit.openedAt === undefined) return 'closed';
    return this.now() - circuit.openedAt >= circuit.pauseMs ? 'half_open' : 'open';
  }

  /** Whether a call may go out now; in half-open state only one probe at a time. */
  allow(buyerId: string): boolean {
    const state = this.state(buyerId);
    if (state === 'closed') return true;
    if (state === 'open') return false;
    const circuit = this.circuits.get(buyerId)!;
    if (circuit.probing) return false;
    circuit.probing = true;
    return true;
  }

  /** Every buyer this process has called, with its circuit's state now. */
  *states(): Iterable<[buyerId: string, state: CircuitState]> {
    for (const buyerId of this.circuits.keys()) yield [buyerId, this.state(buyerId)];
  }

  /** A call that got a well-formed answer, accepted or not. */
  recordSuccess(buyerId: string): void {
    const circuit = this.circuit(buyerId);
    if (circuit.openedAt !== undefined) {
      // A probe's success (or a call sent before the pause): the buyer starts again with a clean record.
      circuit.recent = [];
      circuit.openedAt = undefined;
      circuit.pauseMs = this.options.firstPauseMs;
    }
    circuit.probing = false;
    this.remember(circuit, false);
  }

  /**
   * A call that failed: an error status, an unreadable answer or no answer in time. A call sent before
   * the buyer's last counted failure was seen failed in the same episode: a stall that times out every
   * call in flight at once (a burst of leads meeting a pause of the buyer's, the network's or this
   * process's own) is one piece of evidence, not one per lead, and must not pause a healthy buyer.
   */
  recordFailure(buyerId: string, startedAt: number = this.now()): void {
    const circuit = this.circuit(buyerId);
    if (circuit.lastFailureAt !== undefined && startedAt < circuit.lastFailureAt) return;
    circuit.lastFailureAt = this.now();
    if (circuit.probing) {
      circuit.probing = false;
      circuit.pauseMs = Math.min(circuit.pauseMs * 2, this.options.maxPauseMs);
      circuit.openedAt = this.now();
      return;
    }
    this.remember(circuit, true);
    if (circuit.openedAt === undefined && this.failingTooOften(circuit.recent)) circuit.openedAt = this.now();
  }

  private circuit(buyerId: string): BuyerCircuit {
    let circuit = this.circuits.get(buyerId);
    if (!circuit) {
      circuit = {
        recent: [],
        lastFailureAt: undefined,
        openedAt: undefined,
        pauseMs: this.options.firstPauseMs,
        probing: false,
      };
      this.circuits.set(buyerId, circuit);
    }
    return circuit;
  }

  private remember(circuit: BuyerCircuit, failed: boolean): void {
    circuit.recent.push(failed);
    if (circuit.recent.length > this.options.windowSize) circuit.recent.shift();
  }

  private failingTooOften(recent: readonly boolean[]): boolean {
    const failures = recent.filter(Boolean).length;
    return failures >= this.options.minFailures && failures >= this.options.failureShare * recent.length;
  }
}
