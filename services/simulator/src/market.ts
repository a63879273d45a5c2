import type { Endpoint } from './config.js';
import { EndpointState } from './endpoint-state.js';
import type { EndpointRequestContext } from './handle-endpoint.js';
import { type BestSale, type BestSaleTerms, bestSale, leadRandom } from './lead-draws.js';
import { plannedSale } from './planned-sale.js';
import { endpointRandom } from './random.js';
import type { SimulatorStats } from './stats.js';

/** The simulated lenders: their configuration and what they remember. */
export class Market {
  private endpoints = new Map<string, Endpoint>();
  private states = new Map<string, EndpointState>();
  private unknownPaths = 0;
  // Never reset, so references stay unique for the life of the process.
  private refSequence = 0;

  constructor(
    readonly seed: number,
    private readonly closing: AbortSignal,
    /** The body field that names a lead: with it, each lead's draws are its own (lead-draws.ts). */
    readonly leadKey?: string,
  ) {}

  /** Replaces the endpoints; an endpoint kept at the same path keeps its memory and counters. */
  configure(endpoints: Endpoint[]): void {
    this.endpoints = new Map(endpoints.map((endpoint) => [endpoint.path, endpoint]));
    for (const path of this.endpoints.keys()) this.stateOf(path);
  }

  config(): Endpoint[] {
    return [...this.endpoints.values()];
  }

  /** Forgets every counter, bid and applicant, and restarts every random stream from the seed. */
  reset(): void {
    this.states = new Map();
    this.unknownPaths = 0;
    for (const path of this.endpoints.keys()) this.stateOf(path);
  }

  /** What a request to `path` needs, or undefined (and counted) when no endpoint is there. */
  route(path: string): EndpointRequestContext | undefined {
    const endpoint = this.endpoints.get(path);
    if (!endpoint) {
      this.unknownPaths += 1;
      return undefined;
    }
    return {
      endpoint,
      state: this.stateOf(path),
      pingState: endpoint.kind === 'post' ? this.stateOf(endpoint.ping) : undefined,
      nextRef: (prefix) => {
        this.refSequence += 1;
        return `${prefix}-${String(this.refSequence).padStart(6, '0')}`;
      },
      leadRandom: (body) => {
        const lead = this.leadKey === undefined ? undefined : body[this.leadKey];
        return typeof lead === 'string' && lead !== '' ? leadRandom(this.seed, path, lead) : undefined;
      },
      closing: this.closing,
    };
  }

  /** The best sale of each lead (by its leadKey value) a router that knew every answer could have made. */
  bestSales(leads: readonly string[], terms: BestSaleTerms): Record<string, BestSale | null> {
    const endpoints = this.config();
    return Object.fromEntries(leads.map((lead) => [lead, bestSale(endpoints, this.seed, lead, terms) ?? null]));
  }

  /**
   * The sale of each lead by the best plan of a router that knew every bid, latency and fault but not the
   * lenders' decisions (planned-sale.ts).
   */
  plannedSales(leads: readonly string[], terms: BestSaleTerms): Record<string, BestSale | null> {
    const endpoints = this.config();
    return Object.fromEntries(leads.map((lead) => [lead, plannedSale(endpoints, this.seed, lead, terms) ?? null]));
  }

  stats(): SimulatorStats {
    const endpoints = Object.fromEntries([...this.states].map(([path, state]) => [path, state.counters.snapshot()]));
    return { endpoints, unknownPaths: this.unknownPaths };
  }

  private stateOf(path: string): EndpointState {
    let state = this.states.get(path);
    if (!state) {
      state = new EndpointState(endpointRandom(this.seed, path));
      this.states.set(path, state);
    }
    return state;
  }
}
