export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive failed calls that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before one probe is let through. */
  coolDownMs: number;
  now?: () => number;
}

interface BuyerCircuit {
  consecutiveFailures: number;
  openedAt: number | undefined;
  probing: boolean;
}

/**
 * Per-buyer circuit breakers of this process: a buyer that keeps failing
 * (errors, timeouts) is paused so that leads stop waiting on it, then probed
 * with one call after a cool-down; a success closes it again.
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
    return this.now() - circuit.openedAt >= this.options.coolDownMs ? 'half_open' : 'open';
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
    // Closed, and kept rather than deleted so that states() still names the buyer.
    this.circuits.set(buyerId, { consecutiveFailures: 0, openedAt: undefined, probing: false });
  }

  /** A call that failed: an error status, an unreadable answer or no answer in time. */
  recordFailure(buyerId: string): void {
    const circuit = this.circuits.get(buyerId) ?? { consecutiveFailures: 0, openedAt: undefined, probing: false };
    circuit.consecutiveFailures += 1;
    if (circuit.probing || circuit.consecutiveFailures >= this.options.failureThreshold) {
      circuit.openedAt = this.now();
    }
    circuit.probing = false;
    this.circuits.set(buyerId, circuit);
  }
}
