import { FAULT_KINDS, type FaultKind } from './config.js';

/** What one endpoint has seen since the start or the last reset. */
export interface EndpointStats {
  /** Requests to a ping endpoint, whatever their answer. */
  pings: number;
  /** Requests to a direct_post or post endpoint, whatever their answer. */
  posts: number;
  /** Posts accepted, and the sum of their prices in cents. */
  accepted: number;
  acceptedCents: number;
  /** Posts rejected, for any reason (declined, duplicate, no matching ping). */
  rejected: number;
  /** Of the rejected: as duplicates, and for want of a matching ping. */
  duplicates: number;
  unmatchedPosts: number;
  /** Pings answered with a bid, the sum of those bids in cents, and pings answered with no bid. */
  bids: number;
  bidCents: number;
  noBids: number;
  /** Answered 401 for want of the required credentials. */
  unauthorized: number;
  /** Answered 400, 405, 413 or 415: a body or method the simulator cannot take. */
  badRequests: number;
  /** Injected faults by kind. */
  errors: Record<FaultKind, number>;
  /** Pings whose body carried personal data, and the paths of the fields that did. */
  piiPings: number;
  piiFields: string[];
}

export interface SimulatorStats {
  endpoints: Record<string, EndpointStats>;
  /** Requests to a path that is neither an endpoint nor the admin API. */
  unknownPaths: number;
}

type Counter = Exclude<keyof EndpointStats, 'errors' | 'piiFields'>;

export class EndpointCounters {
  private readonly counts = {
    pings: 0,
    posts: 0,
    accepted: 0,
    acceptedCents: 0,
    rejected: 0,
    duplicates: 0,
    unmatchedPosts: 0,
    bids: 0,
    bidCents: 0,
    noBids: 0,
    unauthorized: 0,
    badRequests: 0,
    piiPings: 0,
  } satisfies Record<Counter, number>;
  private readonly errors = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  private readonly piiFields = new Set<string>();

  add(counter: Counter, amount = 1): void {
    this.counts[counter] += amount;
  }

  fault(kind: FaultKind): void {
    this.errors[kind] += 1;
  }

  pii(paths: string[]): void {
    this.counts.piiPings += 1;
    for (const path of paths) this.piiFields.add(path);
  }

  snapshot(): EndpointStats {
    return { ...this.counts, errors: { ...this.errors }, piiFields: [...this.piiFields].sort() };
  }
}
