import type { Distribution } from './distributions.js';

/**
 * What one simulated lender endpoint does. `EndpointConfig` is what a config
 * file, `startSimulator` or `PUT /_simulator/config` takes; `Endpoint` is the
 * same after validation, every default filled in.
 *
 * - `direct_post`: accepts with probability `acceptRate` at a price drawn from `price`.
 * - `ping`: bids with probability `acceptRate`, an amount drawn from `bid`, and
 *   remembers the bid for `pingTtlMs` under the ping's `leadId` and its own `pingRef`.
 * - `post`: the post half of the ping endpoint at `ping`: a post that names a
 *   remembered bid (any value of its body is the bid's `pingRef`, or its top-level
 *   `leadId` is the ping's) is accepted at that bid with probability `acceptRate`;
 *   any other post is rejected.
 */
export type EndpointKind = 'direct_post' | 'ping' | 'post';

export type ReplyFormat = 'json' | 'xml' | 'text';

export const FAULT_KINDS = ['status500', 'status503', 'hang', 'reset', 'html', 'truncated', 'garbage'] as const;

/**
 * - status500 / status503: that status with a short error body.
 * - hang: headers never sent; the request stays open until the client gives up.
 * - reset: a 200 whose body stops half-way, then a TCP reset.
 * - html: a 200 carrying an HTML page.
 * - truncated: a 200 whose Content-Length promises the whole reply but only half is sent before the connection closes.
 * - garbage: a 200 with the format's content type and random bytes.
 */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Probability of each fault per request; their sum is at most 1. */
export type FaultRates = Record<FaultKind, number>;

/** Same shape as the auth of leadflow's buyer integrations. */
export type RequiredAuth = { type: 'bearer'; token: string } | { type: 'basic'; username: string; password: string };

/**
 * A lender's own reply bodies, by verdict, for the simulator to answer in instead of its standard
 * ones (replies.ts): `{placeholder}`s are filled in, escaped for the endpoint's format.
 * - ping: `bid` ({bid}, {pingRef}), `noBid` ({reason});
 * - posts: `accepted` ({price}, {leadRef}, {redirect}), `rejected` ({reason}).
 * A verdict without one of its own gets the standard reply.
 */
export type PingReplies = Partial<Record<'bid' | 'noBid', string>>;
export type PostReplies = Partial<Record<'accepted' | 'rejected', string>>;

interface CommonConfig {
  /** Exact request path, e.g. "/lender-a/post"; "/_simulator/" is reserved. */
  path: string;
  /** Reply format; default json. */
  format?: ReplyFormat;
  /** 0..1, default 1: the chance to accept (posts) or to bid (pings). */
  acceptRate?: number;
  /** Time before answering; default none. */
  latencyMs?: Distribution;
  errors?: Partial<FaultRates>;
  /** Requests without these credentials get a 401. */
  requireAuth?: RequiredAuth;
}

interface PostConfig {
  replies?: PostReplies;
  /**
   * Redirect URL of accepted leads; `{leadRef}`, `{leadId}` and `{price}` are
   * replaced (URL-encoded). No redirect in the reply when absent.
   */
  redirectUrl?: string;
  /** Reject a post whose ssn or email this endpoint has seen in an earlier post; default false. */
  duplicateCheck?: boolean;
}

export interface DirectPostEndpointConfig extends CommonConfig, PostConfig {
  kind: 'direct_post';
  price: Distribution;
}

export interface PingEndpointConfig extends CommonConfig {
  kind: 'ping';
  bid: Distribution;
  /** How long a bid can be posted against; default 60 000. */
  pingTtlMs?: number;
  replies?: PingReplies;
}

export interface PostEndpointConfig extends CommonConfig, PostConfig {
  kind: 'post';
  /** Path of the ping endpoint this post belongs to. */
  ping: string;
}

export type EndpointConfig = DirectPostEndpointConfig | PingEndpointConfig | PostEndpointConfig;

interface ResolvedCommon {
  path: string;
  format: ReplyFormat;
  acceptRate: number;
  /** `{ fixed: 0 }` when the config has none. */
  latencyMs: Distribution;
  /** Every fault present, 0 when the config has none. */
  errors: FaultRates;
  requireAuth: RequiredAuth | undefined;
}

interface ResolvedPost {
  /** `{}` when the config has none. */
  replies: PostReplies;
  redirectUrl: string | undefined;
  duplicateCheck: boolean;
}

export interface DirectPostEndpoint extends ResolvedCommon, ResolvedPost {
  kind: 'direct_post';
  price: Distribution;
}

export interface PingEndpoint extends ResolvedCommon {
  kind: 'ping';
  bid: Distribution;
  pingTtlMs: number;
  /** `{}` when the config has none. */
  replies: PingReplies;
}

export interface PostEndpoint extends ResolvedCommon, ResolvedPost {
  kind: 'post';
  ping: string;
}

export type Endpoint = DirectPostEndpoint | PingEndpoint | PostEndpoint;

export const DEFAULT_PING_TTL_MS = 60_000;
