/** The ranges a publisher's terms must be in; the CLI checks its options against them before it calls. */
export const RATE_LIMIT_PER_MINUTE = { min: 1, max: 1_000_000 } as const;
/** A payout share in basis points of the buyer's price: 10000 is all of it. */
export const PAYOUT_SHARE_BPS = { min: 1, max: 10_000 } as const;
