import { LEAD_FIELDS, type LeadField } from '@leadflow/core/lead-fields';
import type { EndpointConfig, ReplyFormat } from './config.js';
import type { FieldSource, HttpExchange, Integration, ResponseParser } from './integration-document.js';

/*
 * leadflow buyer integrations that talk to simulator endpoints: what an
 * operator would write under `integration:` in `leadflow buyer apply`, for
 * every endpoint kind and reply format. The parsers read exactly the replies
 * documented in replies.ts.
 */

/** Response parsers for the simulator's replies, by exchange and format. */
const REPLY_PARSERS: Record<'ping' | 'post', Record<ReplyFormat, ResponseParser>> = {
  post: {
    json: {
      format: 'json',
      accepted: { path: '$.status', equals: 'accepted' },
      price: { path: '$.price' },
      reason: { path: '$.reason' },
      reference: { path: '$.leadRef' },
      redirectUrl: { path: '$.redirect' },
    },
    xml: {
      format: 'xml',
      accepted: { path: '/response/result/@status', equals: 'accepted' },
      price: { path: '/response/price' },
      reason: { path: '/response/reason' },
      reference: { path: '/response/leadRef' },
      redirectUrl: { path: '/response/redirect' },
    },
    text: {
      format: 'text',
      accepted: { path: '^(ACCEPTED|REJECTED)\\|', equals: 'ACCEPTED' },
      price: { path: '^ACCEPTED\\|([^|]*)' },
      reason: { path: '^REJECTED\\|(.*)$' },
      reference: { path: '^ACCEPTED\\|[^|]*\\|([^|]*)' },
      redirectUrl: { path: '^ACCEPTED\\|[^|]*\\|[^|]*\\|(.+)$' },
    },
  },
  ping: {
    json: {
      format: 'json',
      accepted: { path: '$.status', equals: 'bid' },
      price: { path: '$.bid' },
      reason: { path: '$.reason' },
      reference: { path: '$.pingRef' },
      redirectUrl: undefined,
    },
    xml: {
      format: 'xml',
      accepted: { path: '/response/result/@status', equals: 'bid' },
      price: { path: '/response/bid' },
      reason: { path: '/response/reason' },
      reference: { path: '/response/pingRef' },
      redirectUrl: undefined,
    },
    text: {
      format: 'text',
      accepted: { path: '^(BID|NOBID)\\|', equals: 'BID' },
      price: { path: '^BID\\|([^|]*)' },
      reason: { path: '^NOBID\\|(.*)$' },
      reference: { path: '^BID\\|[^|]*\\|(.*)$' },
      redirectUrl: undefined,
    },
  },
};

export function simulatorReplyParser(exchange: 'ping' | 'post', format: ReplyFormat): ResponseParser {
  return structuredClone(REPLY_PARSERS[exchange][format]);
}

type MappedField = LeadField | 'leadId' | 'age';

const AMOUNT_FIELDS: ReadonlySet<MappedField> = new Set(['loanAmount', 'incomeNetMonthly']);

/** Each field under its own name; amounts as dollar strings ("1500.00"). */
function mappingOf(fields: readonly MappedField[]): Record<string, FieldSource> {
  return Object.fromEntries(
    fields.map((field) => [field, { field, transform: AMOUNT_FIELDS.has(field) ? [{ money: 'string' }] : [] }]),
  );
}

/** What a ping carries: the lead's id (the post is matched on it) and no personal data. */
export const PING_MAPPING: Readonly<Record<string, FieldSource>> = mappingOf([
  'leadId',
  'state',
  'zip',
  'loanAmount',
  'incomeType',
  'incomeNetMonthly',
  'incomePaymentFrequency',
  'bankAccountType',
  'bankDirectDeposit',
  'ownHome',
  'creditRating',
  'loanPurpose',
  'age',
]);

/** What a post carries: the lead's id and every lead field under its own name, but the publisher's price floor. */
export const POST_MAPPING: Readonly<Record<string, FieldSource>> = mappingOf([
  'leadId',
  ...LEAD_FIELDS.filter((field) => field !== 'price'),
]);

/** A ping-post post also names the bid it answers: the pingRef of the ping's reply. */
export const PING_POST_MAPPING: Readonly<Record<string, FieldSource>> = {
  ...POST_MAPPING,
  pingRef: { field: 'pingReference', transform: [] },
};

export interface SimulatorIntegrationOptions {
  /** Request body format; default json (the simulator reads both). */
  bodyFormat?: 'json' | 'form';
  /** Per call; default 1000. */
  timeoutMs?: number;
}

/**
 * The integration of a leadflow buyer that sells to the simulator endpoint at
 * `postPath` (a direct_post, or the post of a ping-post pair) of a simulator
 * running at `baseUrl` with `endpoints`. Test-mode leads go to the same URLs.
 */
export function simulatorIntegration(
  baseUrl: string,
  endpoints: readonly EndpointConfig[],
  postPath: string,
  options: SimulatorIntegrationOptions = {},
): Integration {
  const post = endpoints.find((endpoint) => endpoint.path === postPath);
  if (post?.kind !== 'direct_post' && post?.kind !== 'post')
    throw new Error(`${postPath} is not a post endpoint of this config`);
  const ping = post.kind === 'post' ? endpoints.find((endpoint) => endpoint.path === post.ping) : undefined;
  const exchange = (endpoint: EndpointConfig, role: 'ping' | 'post'): HttpExchange => {
    const url = new URL(endpoint.path, baseUrl).href;
    return {
      url,
      testUrl: url,
      method: 'POST',
      format: options.bodyFormat ?? 'json',
      headers: {},
      auth: endpoint.requireAuth && { ...endpoint.requireAuth },
      mapping: structuredClone(role === 'ping' ? PING_MAPPING : ping ? PING_POST_MAPPING : POST_MAPPING),
      response: simulatorReplyParser(role, endpoint.format ?? 'json'),
    };
  };
  return {
    mode: ping ? 'ping_post' : 'direct_post',
    ping: ping && exchange(ping, 'ping'),
    post: exchange(post, 'post'),
    timeoutMs: options.timeoutMs ?? 1000,
    pingTimeoutMs: undefined,
    postTimeoutMs: undefined,
    local: true,
    testBehaviour: 'test_url',
    onTimeout: 'unconfirmed',
    statusLookup: undefined,
  };
}
