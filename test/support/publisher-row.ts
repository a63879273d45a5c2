import type { PublisherRow } from '@leadflow/distribution/src/db/schema';

/** A publisher's row as the store holds it, for tests that write rows of their own. */
export function publisherRow(id: string, name = id): PublisherRow {
  return {
    id,
    name,
    rate_limit_per_minute: 60,
    payout_share_bps: 8000,
    clawback_bps: 10_000,
    created_at: 1_700_000_000_000,
  };
}
