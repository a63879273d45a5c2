import type { Distribution, EndpointConfig, FaultKind, ReplyFormat } from '@leadflow/simulator';
import { buyersDocument, type SimulatorBuyer } from './buyer-document.js';

/**
 * The market scenario's markets of simulated lenders (BENCH_MARKETS picks some). `standard`: 14 lenders in
 * three tiers whose bids overlap (a tier-2 lender often outbids
 * tier 1), 13 ping-post and one direct post. Pings come back in tens of milliseconds; posts take 150 ms
 * to 1.7 s, two lenders being slow to post. One lender's pings often hang, three fail some of their
 * calls (5xx, hangs, HTML pages), one bids high and then turns most posts down, and tier 3 bids partly
 * below the leads' floor (10.00 to the publisher, so 12.50 at the 0.8 share).
 */
interface Lender {
  name: string;
  tier: number;
  format: ReplyFormat;
  /** Dollars: the bid of a ping-post lender, the price of a direct post. */
  price: Distribution;
  /** Chance to bid on a ping (ping-post lenders). */
  bidRate?: number;
  /** Chance to accept the post of a lead it bid on (or a direct post). */
  acceptRate: number;
  pingMs?: Distribution;
  postMs: Distribution;
  /** Per call, pings and posts alike. */
  errors?: Partial<Record<FaultKind, number>>;
  /** Only the ping's faults (a lender whose bidding service hangs). */
  pingErrors?: Partial<Record<FaultKind, number>>;
}

const FAST_PING: Distribution = { uniform: [20, 120] };
const PING: Distribution = { uniform: [40, 250] };
const POST: Distribution = { uniform: [150, 600] };
const SLOW_POST: Distribution = { uniform: [700, 1700] };
const FLAKY = { status500: 0.05, hang: 0.04, html: 0.04 };

const STANDARD_LENDERS: Lender[] = [
  {
    name: 'apex',
    tier: 1,
    format: 'json',
    price: { normal: { mean: 45, sd: 10, min: 20, max: 80 } },
    bidRate: 0.7,
    acceptRate: 0.85,
    pingMs: FAST_PING,
    postMs: POST,
  },
  {
    name: 'bluebird',
    tier: 1,
    format: 'xml',
    price: { uniform: [25, 60] },
    bidRate: 0.6,
    acceptRate: 0.8,
    pingMs: PING,
    postMs: { uniform: [300, 900] },
  },
  {
    name: 'crest',
    tier: 1,
    format: 'text',
    price: { uniform: [30, 55] },
    bidRate: 0.65,
    acceptRate: 0.85,
    pingMs: PING,
    postMs: POST,
    errors: FLAKY,
  },
  {
    name: 'delta',
    tier: 1,
    format: 'json',
    price: { normal: { mean: 55, sd: 8, min: 35, max: 80 } },
    bidRate: 0.8,
    acceptRate: 0.15,
    pingMs: FAST_PING,
    postMs: POST,
  },
  {
    name: 'summit',
    tier: 1,
    format: 'json',
    price: { uniform: [40, 75] },
    bidRate: 0.6,
    acceptRate: 0.8,
    pingMs: PING,
    postMs: SLOW_POST,
  },
  {
    name: 'tarn',
    tier: 1,
    format: 'xml',
    price: { uniform: [35, 65] },
    bidRate: 0.7,
    acceptRate: 0.8,
    pingMs: PING,
    postMs: POST,
    pingErrors: { hang: 0.25 },
  },
  {
    name: 'echo',
    tier: 2,
    format: 'json',
    price: { uniform: [15, 35] },
    bidRate: 0.7,
    acceptRate: 0.9,
    pingMs: FAST_PING,
    postMs: POST,
  },
  {
    name: 'fjord',
    tier: 2,
    format: 'xml',
    price: { normal: { mean: 25, sd: 6, min: 12, max: 40 } },
    bidRate: 0.6,
    acceptRate: 0.9,
    pingMs: PING,
    postMs: POST,
    errors: { status503: 0.06, hang: 0.05, html: 0.05 },
  },
  {
    name: 'grove',
    tier: 2,
    format: 'text',
    price: { uniform: [14, 30] },
    bidRate: 0.6,
    acceptRate: 0.85,
    pingMs: PING,
    postMs: POST,
  },
  {
    name: 'harbor',
    tier: 2,
    format: 'json',
    price: { uniform: [18, 28] },
    bidRate: 0.5,
    acceptRate: 0.9,
    pingMs: FAST_PING,
    postMs: POST,
  },
  {
    name: 'kestrel',
    tier: 2,
    format: 'json',
    price: { uniform: [25, 60] },
    bidRate: 0.6,
    acceptRate: 0.85,
    pingMs: PING,
    postMs: SLOW_POST,
    errors: FLAKY,
  },
  {
    name: 'ivory',
    tier: 3,
    format: 'json',
    price: { uniform: [10, 20] },
    bidRate: 0.9,
    acceptRate: 0.95,
    pingMs: FAST_PING,
    postMs: POST,
  },
  {
    name: 'juniper',
    tier: 3,
    format: 'xml',
    price: { uniform: [12, 18] },
    bidRate: 0.95,
    acceptRate: 0.95,
    pingMs: PING,
    postMs: POST,
  },
  { name: 'larch', tier: 3, format: 'json', price: { fixed: 16 }, acceptRate: 0.6, postMs: { uniform: [100, 400] } },
];

/** Pings of the good bidders of the slower markets: in 250 to 400 ms, or 250 to 450 ms. */
const SLOW_PING: Distribution = { uniform: [250, 400] };
const SLOWER_PING: Distribution = { uniform: [250, 450] };
const SLOW_RICH_POST: Distribution = { uniform: [600, 1400] };
/** The lenders that bid the most: tier 1, and tier 2's kestrel. */
const RICH = new Set(['apex', 'bluebird', 'crest', 'delta', 'summit', 'tarn', 'kestrel']);

/** Faults but hangs: a lender that fails now and then yet always answers. */
function withoutHangs(errors: Lender['errors']): Lender['errors'] {
  if (!errors) return undefined;
  const { hang: _hang, ...others } = errors;
  return others;
}

/**
 * `slow_pings`: the standard lenders, but the rich ones answer pings in 250 to 400 ms and no lender's
 * calls hang: a learned window of 15% of the budget closes just before the best bids.
 */
const SLOW_PING_LENDERS: Lender[] = STANDARD_LENDERS.map((lender) => ({
  ...lender,
  pingMs: lender.bidRate !== undefined && RICH.has(lender.name) ? SLOW_PING : lender.pingMs,
  errors: withoutHangs(lender.errors),
  pingErrors: withoutHangs(lender.pingErrors),
}));

/**
 * `slow_rich`: tiers slow and rich: the rich lenders answer pings in 250 to 450 ms and posts in 0.6 to
 * 1.4 s, and more of them hang (bluebird's pings too, 15%).
 */
const SLOW_RICH_LENDERS: Lender[] = STANDARD_LENDERS.map((lender) =>
  RICH.has(lender.name)
    ? {
        ...lender,
        pingMs: lender.bidRate !== undefined ? SLOWER_PING : lender.pingMs,
        postMs: SLOW_RICH_POST,
        pingErrors: lender.name === 'bluebird' ? { hang: 0.15 } : lender.pingErrors,
      }
    : lender,
);

export const MARKET_NAMES = ['standard', 'slow_pings', 'slow_rich'] as const;
export type MarketName = (typeof MARKET_NAMES)[number];

/** One market: its lenders, and the ping timeout leadflow's buyers of it are given. */
export interface Market {
  name: MarketName;
  lenders: readonly Lender[];
  pingTimeoutMs: number;
}

export const MARKETS: Record<MarketName, Market> = {
  standard: { name: 'standard', lenders: STANDARD_LENDERS, pingTimeoutMs: 800 },
  slow_pings: { name: 'slow_pings', lenders: SLOW_PING_LENDERS, pingTimeoutMs: 1_200 },
  slow_rich: { name: 'slow_rich', lenders: SLOW_RICH_LENDERS, pingTimeoutMs: 1_200 },
};

export const MARKET_SEED = 20261122;
/** The body field the simulator knows each lead by: the clickid, the same lead in every run. */
export const MARKET_LEAD_KEY = 'clickid';
/** The publishers' floor (lead-body.ts) over the buyers' revenue share: the least bid that can sell. */
export const MARKET_MIN_PRICE_CENTS = 1250;
/** Per buyer, every market: posts are answered in up to 1.7 s. */
export const POST_TIMEOUT_MS = 2_000;
/** leadflow's selling budget per lead (LEADFLOW_SELL_DEADLINE_MS): what publishers wait, then with time to spare. */
export const SELL_DEADLINE_MS = 2_000;
/** The budgets each market is sold at, routed and by the waterfall: tight, the publishers', with time to spare. */
export const MARKET_BUDGETS_MS = [1_000, SELL_DEADLINE_MS, 10_000];

const postPath = ({ name }: Lender) => `/${name}/post`;
const buyerName = ({ name }: Lender) => `market-${name}`;

/** The leadflow buyer that sells to the lender of this post endpoint. */
export function buyerNameOf(market: Market, path: string): string {
  const lender = market.lenders.find((candidate) => postPath(candidate) === path);
  if (!lender) throw new Error(`no lender posts at ${path}`);
  return buyerName(lender);
}

/** The market's lenders as simulator endpoints. */
export function marketEndpoints(market: Market): EndpointConfig[] {
  return market.lenders.flatMap(endpointsOf);
}

function endpointsOf(lender: Lender): EndpointConfig[] {
  const { name, format, price, acceptRate, postMs, errors } = lender;
  if (lender.bidRate === undefined)
    return [{ path: postPath(lender), kind: 'direct_post', format, price, acceptRate, latencyMs: postMs, errors }];
  return [
    {
      path: `/${name}/ping`,
      kind: 'ping',
      format,
      bid: price,
      acceptRate: lender.bidRate,
      latencyMs: lender.pingMs,
      errors: lender.pingErrors ?? errors,
    },
    { path: postPath(lender), kind: 'post', ping: `/${name}/ping`, format, acceptRate, latencyMs: postMs, errors },
  ];
}

/** Every lender as a leadflow buyer priced at its bid (a direct post at its fixed price), paying publishers 80% of it, caps off. */
function marketBuyer(lender: Lender): SimulatorBuyer {
  return {
    name: buyerName(lender),
    tier: lender.tier,
    postPath: postPath(lender),
    timeoutMs: POST_TIMEOUT_MS,
    pricing:
      lender.bidRate === undefined && 'fixed' in lender.price
        ? { type: 'fixed', price: lender.price.fixed.toFixed(2) }
        : { type: 'bid' },
    payout: { revenueShare: 0.8 },
  };
}

interface ExchangeDocument {
  mapping: Record<string, unknown>;
}

/**
 * The buyers' apply document: each with its own ping and post timeouts, and the lead's clickid in
 * every call, by which the simulator knows the lead (MARKET_LEAD_KEY).
 */
export function marketBuyersDocument(market: Market, simulatorUrl: string): unknown {
  const document = buyersDocument(simulatorUrl, marketEndpoints(market), market.lenders.map(marketBuyer)) as {
    buyers: { integration: Record<string, unknown> }[];
  };
  for (const { integration } of document.buyers) {
    delete integration.timeoutMs;
    if (integration.mode === 'ping_post') integration.pingTimeoutMs = market.pingTimeoutMs;
    integration.postTimeoutMs = POST_TIMEOUT_MS;
    for (const exchange of [integration.ping, integration.post] as (ExchangeDocument | undefined)[]) {
      if (exchange) exchange.mapping[MARKET_LEAD_KEY] = { field: 'clickid', transform: [] };
    }
  }
  return document;
}
