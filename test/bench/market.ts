import type { Distribution, EndpointConfig, FaultKind, ReplyFormat } from '../../services/simulator/index.js';
import type { SimulatorBuyer } from './buyer-document.js';

/**
 * The market scenario's lenders: 10 ping-post buyers in three tiers (4 + 4 + 2), answering pings and posts
 * in 50 to 300 ms, in all three reply formats. Two fail about 15% of their calls (5xx, hangs, HTML pages),
 * one bids high and then turns most posts down, and tier 3 bids partly below the leads' floor
 * (10.00 to the publisher, so 12.50 at the 0.8 share).
 */
interface Lender {
  name: string;
  tier: number;
  format: ReplyFormat;
  /** Dollars. */
  bid: Distribution;
  /** Chance to bid on a ping. */
  bidRate: number;
  /** Chance to accept the post of a lead it bid on. */
  acceptRate: number;
  /** Per call, pings and posts alike. */
  errors?: Partial<Record<FaultKind, number>>;
}

const LENDERS: Lender[] = [
  {
    name: 'apex',
    tier: 1,
    format: 'json',
    bid: { normal: { mean: 45, sd: 10, min: 20, max: 80 } },
    bidRate: 0.7,
    acceptRate: 0.9,
  },
  { name: 'bluebird', tier: 1, format: 'xml', bid: { uniform: [25, 60] }, bidRate: 0.6, acceptRate: 0.85 },
  {
    name: 'crest',
    tier: 1,
    format: 'text',
    bid: { uniform: [30, 55] },
    bidRate: 0.65,
    acceptRate: 0.9,
    errors: { status500: 0.06, hang: 0.04, html: 0.04 },
  },
  {
    name: 'delta',
    tier: 1,
    format: 'json',
    bid: { normal: { mean: 55, sd: 8, min: 35, max: 80 } },
    bidRate: 0.8,
    acceptRate: 0.15,
  },
  { name: 'echo', tier: 2, format: 'json', bid: { uniform: [15, 35] }, bidRate: 0.7, acceptRate: 0.9 },
  {
    name: 'fjord',
    tier: 2,
    format: 'xml',
    bid: { normal: { mean: 25, sd: 6, min: 12, max: 40 } },
    bidRate: 0.6,
    acceptRate: 0.9,
    errors: { status503: 0.06, hang: 0.05, html: 0.05 },
  },
  { name: 'grove', tier: 2, format: 'text', bid: { uniform: [14, 30] }, bidRate: 0.6, acceptRate: 0.85 },
  { name: 'harbor', tier: 2, format: 'json', bid: { uniform: [18, 28] }, bidRate: 0.5, acceptRate: 0.9 },
  { name: 'ivory', tier: 3, format: 'json', bid: { uniform: [10, 20] }, bidRate: 0.9, acceptRate: 0.95 },
  { name: 'juniper', tier: 3, format: 'xml', bid: { uniform: [12, 18] }, bidRate: 0.95, acceptRate: 0.95 },
];

const LATENCY_MS: Distribution = { uniform: [50, 300] };

export const MARKET_SEED = 20261122;
/** Per buyer call. */
export const BUYER_TIMEOUT_MS = 1_000;
/** leadflow's overall deadline per lead (LEADFLOW_SELL_DEADLINE_MS). */
export const SELL_DEADLINE_MS = 2_500;

export const MARKET_ENDPOINTS: EndpointConfig[] = LENDERS.flatMap(
  ({ name, format, bid, bidRate, acceptRate, errors }) => [
    { path: `/${name}/ping`, kind: 'ping', format, bid, acceptRate: bidRate, latencyMs: LATENCY_MS, errors },
    { path: `/${name}/post`, kind: 'post', ping: `/${name}/ping`, format, acceptRate, latencyMs: LATENCY_MS, errors },
  ],
);

/** Every lender as a leadflow buyer priced at its bid, paying publishers 80% of it, caps off. */
export const MARKET_BUYERS: SimulatorBuyer[] = LENDERS.map(({ name, tier }) => ({
  name: `market-${name}`,
  tier,
  postPath: `/${name}/post`,
  timeoutMs: BUYER_TIMEOUT_MS,
  pricing: { type: 'bid' },
  payout: { revenueShare: 0.8 },
}));
