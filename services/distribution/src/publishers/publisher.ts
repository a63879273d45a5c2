/** A publisher as the service works with it; rows stay in publisher.repository.ts. */
export interface Publisher {
  id: string;
  name: string;
  rateLimitPerMinute: number;
  payoutShareBps: number;
  /** Share of a returned lead's payout taken back from it, in basis points: 10000 all, 0 none (the network absorbs it). */
  clawbackBps: number;
  createdAt: number;
}

/** What is kept of a publisher key: its hash and last characters, never the key. */
export interface PublisherKeyInfo {
  id: string;
  publisherId: string;
  keyHash: string;
  hint: string;
  createdAt: number;
  revokedAt: number | undefined;
}

export interface PublisherWithKeys extends Publisher {
  keys: PublisherKeyInfo[];
}
