import type { LeadField } from '@leadflow/core/lead-fields';
import type { Weekday } from '@leadflow/core/zoned-time';

/**
 * A buyer as the operator declares it (`leadflow buyer apply -f FILE`) and as
 * selection reads it. Money is integer cents, times are milliseconds, after
 * parsing; the file itself takes dollars ("25.00") and names.
 */
export interface BuyerDefinition {
  /** Unique; the key `apply` matches on. */
  name: string;
  active: boolean;
  /** Tiers are tried in ascending order; a lower tier is asked only when no buyer of a higher one bought. */
  tier: number;
  /** Inside a tier, among equal offers, lower priority goes first. */
  priority: number;
  /** Share of rotation among buyers of equal tier, priority and offer (weighted round robin). */
  weight: number;
  integration: Integration;
  filters: FilterRule | undefined;
  schedule: Schedule | undefined;
  caps: Caps;
  duplicates: DuplicatePolicy | undefined;
  pricing: Pricing;
  payout: PayoutPolicy;
  /** Absent: the buyer accepts no returns. */
  returns?: ReturnTerms;
}

// ---------------------------------------------------------------- filters

/** Values a filter can read besides the lead's own fields. */
export type DerivedField =
  | 'age'
  | 'loanAmount'
  | 'incomeNetMonthly'
  | 'daysUntilNextPayDate'
  /** 0-23 in the buyer's schedule time zone (UTC without a schedule). */
  | 'hourOfDay'
  /** mon..sun in the buyer's time zone. */
  | 'dayOfWeek'
  | 'testMode'
  | 'publisherId';

export type FilterField = LeadField | DerivedField;

/**
 * Text comparisons (equals, in, pattern) ignore case. A missing value matches only `exists: false`.
 */
export type FilterRule =
  | { all: FilterRule[] }
  | { any: FilterRule[] }
  | { not: FilterRule }
  | { field: FilterField; equals: string | number | boolean }
  | { field: FilterField; in: (string | number)[] }
  /** Inclusive bounds; either may be absent. Amount fields compare in dollars as written in the file. */
  | { field: FilterField; range: { min?: number; max?: number } }
  /** A JavaScript regular expression, anchored only if the pattern says so. */
  | { field: FilterField; pattern: string }
  | { field: FilterField; exists: boolean };

// ---------------------------------------------------------------- returns

/** What a buyer may send back after buying (docs/returns.md). */
export interface ReturnTerms {
  /** A lead may be returned until the end of this many days after its day of sale, in the buyer's time zone. */
  windowDays: number;
  /** The reason codes the buyer may return a lead for. */
  reasons: string[];
  /** At most `percent` of the leads it bought in the last `periodDays` days may be returned. */
  maxRate: { percent: number; periodDays: number } | undefined;
}

// ---------------------------------------------------------------- schedule

export interface Schedule {
  /** IANA zone, e.g. America/Chicago. */
  timezone: string;
  /** Open days; all seven when absent in the file. */
  days: Weekday[];
  /** Open from `from` (inclusive) to `to` (exclusive), "HH:MM" in the zone; to < from wraps past midnight. */
  hours: { from: string; to: string } | undefined;
}

// ---------------------------------------------------------------- caps, duplicates

export interface Caps {
  leadsPerHour: number | undefined;
  leadsPerDay: number | undefined;
  leadsPerMonth: number | undefined;
  spendPerDayCents: number | undefined;
}

export interface DuplicatePolicy {
  lookbackDays: number;
  /** Which keyed hashes count as the same person. */
  match: ('ssn' | 'email' | 'phone')[];
  /** Also leads this buyer was offered and turned down, not only those it bought. */
  includeRejected: boolean;
}

// ---------------------------------------------------------------- money

export type Pricing =
  | { type: 'fixed'; priceCents: number }
  /** First rule whose filter matches sets the price; none matches: defaultCents. */
  | { type: 'rules'; defaultCents: number; rules: { when: FilterRule; priceCents: number }[] }
  /** The price is the buyer's bid (ping-post) or the price its post answer names. */
  | { type: 'bid' };

export type Payout = { revenueShareBps: number } | { fixedCents: number };

export interface PayoutPolicy {
  /** Undefined: the publisher's own revenue share. */
  default: Payout | undefined;
  /** By publisher id. */
  publishers: Record<string, Payout>;
}

// ---------------------------------------------------------------- integration

export interface Integration {
  mode: 'direct_post' | 'ping_post';
  /** Required when mode is ping_post. Carries no PII: the parser refuses sensitive or contact fields in its mapping. */
  ping: HttpExchange | undefined;
  post: HttpExchange;
  /** Per call (ping and post each), unless pingTimeoutMs or postTimeoutMs says otherwise. */
  timeoutMs: number;
  /** Lenders answer pings in tens of milliseconds and posts in seconds: each may have its own. */
  pingTimeoutMs: number | undefined;
  postTimeoutMs: number | undefined;
  /** http:// allowed (and private addresses); otherwise https:// only. */
  local: boolean;
  /** What a test-mode lead gets: the post/ping sent to testUrl, or an answer without any call. */
  testBehaviour: 'test_url' | 'accept' | 'reject';
  /**
   * A post whose answer never came (timeout, connection cut): `unconfirmed` (the default) holds the lead
   * for this buyer until it is resolved; `decline` treats it as a no and offers the lead to the next
   * buyer, for buyers whose contract says a post they did not answer in time is not theirs.
   */
  onTimeout: 'unconfirmed' | 'decline';
  /**
   * Asks the buyer whether it holds a lead whose post went unanswered: its `accepted` rule matching means
   * it does. Carries no PII (ids only: leadId, attemptId).
   */
  statusLookup: HttpExchange | undefined;
  /**
   * `settleAfter`: how long after its post a lead held for this buyer (its post never answered) is
   * closed as not sold, without being offered to anyone else. Unset: it waits for its buyer or an operator.
   */
  settleAfterMs?: number;
}

/**
 * How the mapping is sent: a JSON object, an urlencoded form, an XML document, a SOAP 1.1 envelope, or
 * (GET) the URL's query string with no body.
 */
export type RequestFormat = 'json' | 'form' | 'xml' | 'soap' | 'query';

/**
 * url, testUrl, header values, auth and text constants of the mapping may hold `${env:NAME}` and
 * `${secret:key}` references: stored as written, resolved where the request is built.
 */
export interface HttpExchange {
  url: string;
  /** Used for test-mode leads when testBehaviour is test_url. */
  testUrl: string | undefined;
  method: 'POST' | 'PUT' | 'GET';
  /** query exactly when the method is GET. */
  format: RequestFormat;
  /**
   * xml and soap: the document (for soap, the Body's content) with `{{key}}` placeholders, each filled
   * with the mapping's value of that key, escaped. Without one, mapping keys are element paths.
   */
  template?: string;
  /** soap: the SOAPAction header. */
  soapAction?: string;
  headers: Record<string, string>;
  auth: { type: 'bearer'; token: string } | { type: 'basic'; username: string; password: string } | undefined;
  /**
   * Output key -> where its value comes from. The key is a dotted path for nested JSON
   * ("applicant.firstName"), an element path for XML without a template ("Lead/Applicant/FirstName",
   * "Lead/@version"), a placeholder name with a template, else a form or query parameter name.
   */
  mapping: Record<string, FieldSource>;
  response: ResponseParser;
}

export type Transform =
  | 'digits'
  | 'upper'
  | 'lower'
  | 'trim'
  /** Date field re-written, tokens YYYY, MM, DD (e.g. "MM/DD/YYYY"). */
  | { date: string }
  /** 10-digit phone re-written, token digits by X (e.g. "(XXX) XXX-XXXX"). */
  | { phone: string }
  /** Amount in cents as dollars: "number" (1500.5) or "string" ("1500.50"). */
  | { money: 'number' | 'string' }
  | { map: Record<string, string>; default?: string };

export type FieldSource =
  /**
   * `pingReference` is the reference the buyer's own ping answer named (its ping id), which most ping-post
   * buyers require in the post; only a ping_post buyer's post mapping may use it. `attemptId` is the
   * post's own id, the same on every try of that post: a buyer can dedupe on it (post and statusLookup only).
   */
  | { field: FilterField | 'leadId' | 'pingReference' | 'attemptId'; transform: Transform[] }
  | { value: string | number | boolean };

export type ResponseFormat = 'json' | 'xml' | 'text';

/** A value located in a reply: a JSON path ("$.result.status"), an XPath ("/response/status"), or a regex with one group (text). */
export interface ReplyLocator {
  path: string;
}

export interface ResponseParser {
  format: ResponseFormat;
  /** The reply is an acceptance when the located value matches. */
  accepted: ReplyLocator & ({ equals: string } | { in: string[] } | { matches: string });
  /** Price (post) or bid (ping), in dollars in the reply. */
  price: ReplyLocator | undefined;
  reason: ReplyLocator | undefined;
  /** The buyer's own id for the lead. */
  reference: ReplyLocator | undefined;
  redirectUrl: ReplyLocator | undefined;
  /**
   * A post after a ping whose accepted answer names a price other than the bid: `accept_lower` (the
   * default) charges the lower of the two, `use_bid` always charges the bid, `reject` refuses the sale and
   * holds the lead as unconfirmed for the operator: an accepted post is never followed by another
   * buyer's post. Only in the post response of a ping_post buyer that locates a price.
   */
  priceChange?: PriceChangeRule;
}

export type PriceChangeRule = 'accept_lower' | 'use_bid' | 'reject';

/** How long one call of this kind may take. */
export function callTimeoutMs(integration: Integration, kind: 'ping' | 'post'): number {
  return (kind === 'ping' ? integration.pingTimeoutMs : integration.postTimeoutMs) ?? integration.timeoutMs;
}
