import type { Random } from '@leadflow/core/seeded-random';
import { SeenApplicants } from './identity.js';
import { PingBook } from './ping-book.js';
import { EndpointCounters } from './stats.js';

/** What one endpoint remembers between requests; a reset replaces it. */
export class EndpointState {
  readonly counters = new EndpointCounters();
  readonly bids = new PingBook();
  readonly applicants = new SeenApplicants();

  constructor(readonly random: Random) {}
}
