import { randomBytes } from 'node:crypto';
import type { Db } from '@leadflow/distribution/src/db/database';
import type { BuyerAttemptRow } from '@leadflow/distribution/src/db/schema';
import { buildGateway } from '@leadflow/gateway/src/app';
import type { SubmitLeadResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { loadGatewayConfig } from '@leadflow/service-kit/config';
import { createLogger, type Logger } from '@leadflow/service-kit/logger';
import { type EndpointConfig, type Simulator, startSimulator } from '@leadflow/simulator';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { startTestDistribution, type TestDistribution } from './distribution.js';
import { bearer, call } from './grpc.js';
import { validLeadBody } from './leads.js';
import type { TestDatabase } from './test-database.js';

/*
 * Shared fixtures of the selling tests: a distribution service per suite, buyer simulators on
 * loopback per test, buyer entries for simulator endpoints written here from the simulator's
 * documented replies (README.md, replies.ts) rather than taken from its own integrations.ts, and
 * distinct people to send as leads.
 */

export type ReplyFormat = 'json' | 'xml' | 'text';

/** Response parsers, in the buyer file's own form, for the simulator's replies as its README documents them. */
const POST_PARSERS: Record<ReplyFormat, Record<string, unknown>> = {
  json: {
    format: 'json',
    accepted: { path: '$.status', equals: 'accepted' },
    price: '$.price',
    reason: '$.reason',
    reference: '$.leadRef',
    redirectUrl: '$.redirect',
  },
  xml: {
    format: 'xml',
    accepted: { path: '/response/result/@status', equals: 'accepted' },
    price: '/response/price',
    reason: '/response/reason',
    reference: '/response/leadRef',
    redirectUrl: '/response/redirect',
  },
  text: {
    format: 'text',
    accepted: { path: '^(ACCEPTED|REJECTED)\\|', equals: 'ACCEPTED' },
    price: '^ACCEPTED\\|([0-9.]+)\\|',
    reason: '^REJECTED\\|(.*)$',
    reference: '^ACCEPTED\\|[^|]*\\|([^|]*)',
  },
};

const PING_PARSERS: Record<ReplyFormat, Record<string, unknown>> = {
  json: {
    format: 'json',
    accepted: { path: '$.status', equals: 'bid' },
    price: '$.bid',
    reason: '$.reason',
    reference: '$.pingRef',
  },
  xml: {
    format: 'xml',
    accepted: { path: '/response/result/@status', equals: 'bid' },
    price: '/response/bid',
    reason: '/response/reason',
    reference: '/response/pingRef',
  },
  text: {
    format: 'text',
    accepted: { path: '^(BID|NOBID)\\|', equals: 'BID' },
    price: '^BID\\|([0-9.]+)\\|',
    reason: '^NOBID\\|(.*)$',
    reference: '^BID\\|[^|]*\\|(.+)$',
  },
};

const money = (field: string) => ({ field, transform: { money: 'string' } });

/** No personal data: the lead id (the simulator matches posts on it too) and what a lender prices on. */
const PING_MAPPING = {
  leadId: 'leadId',
  state: 'state',
  zip: 'zip',
  loanAmount: money('loanAmount'),
  incomeNetMonthly: money('incomeNetMonthly'),
  incomeType: 'incomeType',
  age: 'age',
};

const POST_MAPPING = {
  leadId: 'leadId',
  firstName: 'firstName',
  lastName: 'lastName',
  email: 'email',
  ssn: 'ssn',
  dob: 'dob',
  address: 'address',
  city: 'city',
  state: 'state',
  zip: 'zip',
  homePhone: 'homePhone',
  cellPhone: 'cellPhone',
  userIp: 'userIp',
  loanAmount: money('loanAmount'),
  incomeType: 'incomeType',
  incomeNetMonthly: money('incomeNetMonthly'),
  bankAba: 'bankAba',
  bankAccountNumber: 'bankAccountNumber',
  testMode: 'testMode',
};

export interface SimBuyerSpec {
  /** Path of the simulator endpoint posted to: a direct_post, or the post of a ping-post pair. */
  post: string;
  /** Path of the ping endpoint: makes the buyer ping_post. */
  ping?: string;
  /** Reply format of the endpoints; default json. */
  format?: ReplyFormat;
  timeoutMs?: number;
  testBehaviour?: 'accept' | 'reject' | 'test_url';
  /** What an unanswered post means: unconfirmed (the default) or decline. */
  onTimeout?: 'unconfirmed' | 'decline';
  pingTimeoutMs?: number;
  postTimeoutMs?: number;
  /** Paths of the test endpoints (testBehaviour test_url). */
  testPost?: string;
  testPing?: string;
  /** Anything else of the buyer file (tier, priority, weight, pricing, payout, caps, duplicates, filters, schedule, active). */
  [setting: string]: unknown;
}

/** A `buyers:` entry of a buyer file for a buyer played by simulator endpoints at `simulatorUrl`. */
export function simBuyer(name: string, simulatorUrl: string, spec: SimBuyerSpec): Record<string, unknown> {
  const {
    post,
    ping,
    format = 'json',
    timeoutMs = 1000,
    testBehaviour = 'accept',
    onTimeout,
    pingTimeoutMs,
    postTimeoutMs,
    testPost,
    testPing,
    ...settings
  } = spec;
  const url = (path: string) => new URL(path, simulatorUrl).href;
  return {
    name,
    pricing: ping ? { type: 'bid' } : { type: 'fixed', price: '20.00' },
    ...settings,
    integration: {
      mode: ping ? 'ping_post' : 'direct_post',
      timeoutMs,
      local: true,
      testBehaviour,
      ...(onTimeout && { onTimeout }),
      ...(pingTimeoutMs && { pingTimeoutMs }),
      ...(postTimeoutMs && { postTimeoutMs }),
      ...(ping && {
        ping: {
          url: url(ping),
          ...(testPing && { testUrl: url(testPing) }),
          mapping: PING_MAPPING,
          response: PING_PARSERS[format],
        },
      }),
      post: {
        url: url(post),
        ...(testPost && { testUrl: url(testPost) }),
        mapping: ping ? { ...POST_MAPPING, pingRef: 'pingReference' } : POST_MAPPING,
        response: POST_PARSERS[format],
      },
    },
  };
}

// ---------------------------------------------------------------- people

const RUN = randomBytes(3).toString('hex');
const SERIAL_OFFSET = randomBytes(2).readUInt16BE() % 9000;
let personCount = 0;

/** A valid lead of a person no other call of this process returns (SSN, e-mail and cell phone all distinct). */
export function personLead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const n = personCount++;
  const ssn = `${100 + (n % 500)}-${10 + (Math.floor(n / 500) % 90)}-${1000 + ((SERIAL_OFFSET + n) % 9000)}`;
  return validLeadBody({
    price: '1.00',
    ssn,
    email: `person-${RUN}-${n}@example.com`,
    cellPhone: `415${2 + (n % 8)}${String(n).padStart(6, '0').slice(-6)}`,
    ...overrides,
  });
}

// ---------------------------------------------------------------- answers

export type SoldValue = Extract<NonNullable<SubmitLeadResponse['outcome']>, { $case: 'sold' }>['value'];
export type RejectedValue = Extract<NonNullable<SubmitLeadResponse['outcome']>, { $case: 'rejected' }>['value'];

export function soldOf(answer: SubmitLeadResponse): SoldValue {
  if (answer.outcome?.$case !== 'sold') throw new Error(`expected a sale, got ${JSON.stringify(answer.outcome)}`);
  return answer.outcome.value;
}

export function rejectedOf(answer: SubmitLeadResponse): RejectedValue {
  if (answer.outcome?.$case !== 'rejected')
    throw new Error(`expected a rejection, got ${JSON.stringify(answer.outcome)}`);
  return answer.outcome.value;
}

export function leadIdOf(answer: SubmitLeadResponse): string {
  const outcome = answer.outcome;
  if (outcome?.$case === 'sold' || outcome?.$case === 'rejected') return outcome.value.leadId;
  throw new Error(`expected a processed lead, got ${JSON.stringify(outcome)}`);
}

// ---------------------------------------------------------------- the market fixture

export interface Market {
  stack: TestDistribution;
  db: Db;
  /** The publisher of this test (payout share 80%, no practical rate limit). */
  key: string;
  publisherId: string;
  /** A simulator on 127.0.0.1, any port; closed after the test. */
  simulate(endpoints: readonly EndpointConfig[], seed?: number): Promise<Simulator>;
  /** Applies buyer entries, and the tree's settings when given, through the admin RPC; ids by name. */
  apply(entries: Record<string, unknown>[], tree?: Record<string, unknown>): Promise<Record<string, string>>;
  submit(body: Record<string, unknown>, key?: string): Promise<SubmitLeadResponse>;
  /** The answer and the wall time it took. */
  timed(body: Record<string, unknown>): Promise<{ answer: SubmitLeadResponse; ms: number }>;
  /** Another publisher; default payout share 80%. */
  createPublisher(payoutShareBps?: number): Promise<{ id: string; key: string }>;
  attempts(leadId: string): Promise<BuyerAttemptRow[]>;
  count(
    table: 'sales' | 'ledger_entries' | 'buyer_cap_counters',
    where?: { column: string; value: string },
  ): Promise<number>;
}

export interface MarketOptions {
  /** Environment of the distribution service (e.g. LEADFLOW_SELL_DEADLINE_MS). */
  env?: Record<string, string>;
  /** The service's logger; silent by default. */
  logger?: Logger;
}

/**
 * Declares the hooks of a suite selling through a real distribution service: one service per
 * suite, every buyer of earlier tests paused and a new publisher before each test, the test's
 * simulators closed after it.
 */
export function useMarket(database: () => TestDatabase, options: MarketOptions = {}): () => Market {
  let stack: TestDistribution | undefined;
  let market: Market | undefined;
  let simulators: Simulator[] = [];

  before(async () => {
    // SELLING_TEST_LOG=error (or any pino level) shows what the service logs, to debug a failure.
    const logger =
      options.logger ??
      (process.env.SELLING_TEST_LOG ? createLogger('selling-test', process.env.SELLING_TEST_LOG) : undefined);
    stack = await startTestDistribution(database(), { env: options.env, logger });
  });
  after(async () => {
    await stack?.close();
  });
  beforeEach(async () => {
    const running = stack!;
    const auth = () => bearer(running.service.adminToken);
    const { buyers } = await call(running.admin.listBuyers.bind(running.admin), { pageSize: 0, pageToken: '' }, auth());
    for (const buyer of buyers) {
      if (buyer.active)
        await call(running.admin.setBuyerActive.bind(running.admin), { buyer: buyer.id, active: false }, auth());
    }
    const createPublisher = async (payoutShareBps = 8000) => {
      const name = `Selling test publisher ${randomBytes(4).toString('hex')}`;
      const created = await call(
        running.admin.createPublisher.bind(running.admin),
        { name, rateLimitPerMinute: 1_000_000, payoutShareBps },
        auth(),
      );
      return { id: created.publisher!.id, key: created.key };
    };
    const publisher = await createPublisher();
    const db = running.service.db;
    market = {
      stack: running,
      db,
      key: publisher.key,
      publisherId: publisher.id,
      async simulate(endpoints, seed = 7) {
        const simulator = await startSimulator({ host: '127.0.0.1', port: 0, endpoints, seed });
        simulators.push(simulator);
        return simulator;
      },
      apply: (entries, tree) => running.applyBuyers(entries, tree),
      submit: (body, key = publisher.key) => running.submit(key, body),
      async timed(body) {
        const started = performance.now();
        const answer = await running.submit(publisher.key, body);
        return { answer, ms: performance.now() - started };
      },
      createPublisher,
      attempts: (leadId) =>
        db
          .selectFrom('buyer_attempts')
          .selectAll()
          .where('lead_id', '=', leadId)
          .orderBy('started_at')
          .orderBy('id')
          .execute(),
      async count(table, where) {
        let query = db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
        if (where) query = query.where(where.column as never, '=', where.value as never);
        return Number((await query.executeTakeFirstOrThrow()).n);
      },
    };
  });
  afterEach(async () => {
    const closing = simulators;
    simulators = [];
    await Promise.all(closing.map((simulator) => simulator.close()));
  });

  return () => {
    if (!market) throw new Error('market not ready');
    return market;
  };
}

/** A gateway on a loopback port in front of a test distribution service, for leads sent over HTTP. */
export async function startGateway(
  stack: TestDistribution,
): Promise<{ baseUrl: string; gateway: FastifyInstance; close(): Promise<void> }> {
  const config = loadGatewayConfig({
    LEADFLOW_HTTP_PORT: '0',
    LEADFLOW_HTTP_HOST: '127.0.0.1',
    LEADFLOW_DISTRIBUTION_ADDRESS: stack.address,
    LEADFLOW_LOG_LEVEL: 'silent',
  });
  const gateway = buildGateway({ config, logger: pino({ level: 'silent' }) });
  const baseUrl = await gateway.listen({ host: config.httpHost, port: config.httpPort });
  return { baseUrl, gateway, close: () => gateway.close() };
}

// ---------------------------------------------------------------- audit trail

/** The rows of one buyer, and the skip reasons among them. */
export function rowsOf(attempts: readonly BuyerAttemptRow[], buyerId: string): BuyerAttemptRow[] {
  return attempts.filter((attempt) => attempt.buyer_id === buyerId);
}

export function skipReasons(attempts: readonly BuyerAttemptRow[], buyerId: string): (string | null)[] {
  return rowsOf(attempts, buyerId)
    .filter((attempt) => attempt.kind === 'skip')
    .map((attempt) => attempt.reason);
}

export function postsOf(attempts: readonly BuyerAttemptRow[], buyerId?: string): BuyerAttemptRow[] {
  return attempts.filter(
    (attempt) => attempt.kind === 'post' && (buyerId === undefined || attempt.buyer_id === buyerId),
  );
}

/** The simulator's counters of one endpoint, zeros when it saw nothing. */
export function endpointStats(simulator: Simulator, path: string) {
  const stats = simulator.stats().endpoints[path];
  expect(stats, `simulator endpoint ${path}`).not.to.equal(undefined);
  return stats!;
}

/** Runs `tasks` with at most `limit` at a time, results in order. */
export async function inParallel<T>(count: number, limit: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

/**
 * The lead's posts are exactly `expected` (buyer, outcome), and went out in that order: each one
 * started no earlier than the one before (started_at has millisecond resolution, so equal times pass).
 */
export function expectPostsInOrder(attempts: readonly BuyerAttemptRow[], expected: [string, string][]): void {
  const posts = postsOf(attempts);
  expect(posts.map((post) => [post.buyer_id, post.outcome])).to.have.deep.members(expected);
  expect(posts).to.have.length(expected.length);
  const startOf = (buyerId: string) => posts.find((post) => post.buyer_id === buyerId)!.started_at;
  for (let i = 1; i < expected.length; i += 1) {
    expect(startOf(expected[i]![0]), `post ${i} starts after post ${i - 1}`).to.be.at.least(
      startOf(expected[i - 1]![0]),
    );
  }
}

export type SaleRecord = Awaited<ReturnType<typeof salesOf>>[number];

function salesOf(db: Db, leadIds: readonly string[]) {
  return db
    .selectFrom('sales')
    .selectAll()
    .where('lead_id', 'in', leadIds.length > 0 ? [...leadIds] : ['-'])
    .execute();
}

/**
 * The ledger of these leads balances to the cent: every sale has exactly its three entries (buyer
 * charged the charge, publisher paid the payout, platform keeps the margin, summing to zero), a
 * lead without a sale has none, and the totals by entry type equal the sales table's. Returns the sales.
 */
export async function expectBalancedLedger(db: Db, leadIds: readonly string[]): Promise<SaleRecord[]> {
  const sales = await salesOf(db, leadIds);
  const entries = await db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('lead_id', 'in', leadIds.length > 0 ? [...leadIds] : ['-'])
    .execute();
  expect(new Set(sales.map((sale) => sale.lead_id)).size, 'one sale per lead at most').to.equal(sales.length);
  const soldLeads = new Set(sales.map((sale) => sale.lead_id));
  expect(
    entries.filter((entry) => !soldLeads.has(entry.lead_id)),
    'ledger entries of unsold leads',
  ).to.deep.equal([]);
  for (const sale of sales) {
    expect(Number.isInteger(sale.charge_cents) && Number.isInteger(sale.payout_cents), 'integer cents').to.equal(true);
    expect(sale.charge_cents, 'buyer charge = publisher payout + platform margin').to.equal(
      sale.payout_cents + sale.margin_cents,
    );
    expect(sale.margin_cents, 'never sold at a loss').to.be.at.least(0);
    const own = entries
      .filter((entry) => entry.lead_id === sale.lead_id)
      .map((entry) => ({ type: entry.entry_type, account: entry.account, cents: entry.amount_cents }))
      .sort((a, b) => a.type.localeCompare(b.type));
    expect(own, `ledger of ${sale.lead_id}`).to.deep.equal([
      { type: 'buyer_charge', account: `buyer:${sale.buyer_id}`, cents: -sale.charge_cents },
      { type: 'platform_margin', account: 'platform', cents: sale.margin_cents },
      { type: 'publisher_payout', account: `publisher:${sale.publisher_id}`, cents: sale.payout_cents },
    ]);
    expect(
      own.reduce((sum, entry) => sum + entry.cents, 0),
      `entries of ${sale.lead_id} sum to zero`,
    ).to.equal(0);
  }
  const total = (type: string) =>
    entries.filter((entry) => entry.entry_type === type).reduce((sum, entry) => sum + entry.amount_cents, 0);
  const sum = (pick: (sale: SaleRecord) => number) => sales.reduce((acc, sale) => acc + pick(sale), 0);
  expect({
    charged: -total('buyer_charge'),
    paid: total('publisher_payout'),
    kept: total('platform_margin'),
    balance: entries.reduce((acc, entry) => acc + entry.amount_cents, 0),
  }).to.deep.equal({
    charged: sum((sale) => sale.charge_cents),
    paid: sum((sale) => sale.payout_cents),
    kept: sum((sale) => sale.margin_cents),
    balance: 0,
  });
  return sales;
}

/**
 * Submits a lead to `buyer` alone, whose post goes unanswered, so the lead is held for it; the buyer is
 * paused after, out of the next tests' way. The held lead's id.
 */
export async function heldLead(
  stack: TestDistribution,
  publisherKey: string,
  buyer: Record<string, unknown>,
): Promise<string> {
  await stack.applyBuyers([buyer]);
  const answer = await stack.submit(publisherKey, personLead());
  expect(answer.outcome?.$case).to.equal('unconfirmed');
  await stack.applyBuyers([{ ...buyer, active: false }]);
  return answer.outcome?.$case === 'unconfirmed' ? answer.outcome.value.leadId : '';
}
