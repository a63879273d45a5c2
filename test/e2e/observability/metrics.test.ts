import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../support/buyer-server.js';
import { testBuyer } from '../../support/buyers.js';
import { validLeadBody } from '../../support/leads.js';
import { parseSamples, sampled, scrape } from '../../support/metrics-text.js';
import { startTestStack, type TestStack } from '../../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';

const SSN = '535-22-9876';
/** Well-formed, so that it is looked up like any key a publisher might send. */
const UNKNOWN_KEY = 'lfpk_CANARYk3y7f3a9c2e1b5d8e0a1b2c3d4e5f6a7b8c9A';
const INTAKE_ROUTE = '/api/intake/{webmasterKey}';
const SUBMIT_LEAD = 'leadflow.distribution.v1.DistributionService/SubmitLead';

describe('observability: Prometheus metrics of the gateway and the distribution service', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let stack: TestStack;
  let key: string;
  let ids: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON, read by each test in its own shape
  const answers: { status: number; body: any }[] = [];
  let gatewayText: string;
  let distributionText: string;

  const gatewayMetrics = () => scrape(`${stack.baseUrl}/metrics`);
  const distributionMetrics = () => scrape(`http://127.0.0.1:${stack.distribution.service.metricsPort}/metrics`);

  before(async () => {
    database = await sqliteDatabase();
    buyers = await startBuyerServer();
    buyers.behave('/capped', { kind: 'accept', redirectUrl: 'https://lender.example/offer' });
    buyers.behave('/picky', { kind: 'reject', reason: 'outside our footprint' });
    stack = await startTestStack(database);
    ids = await stack.distribution.applyBuyers([
      testBuyer('capped', buyers.url('/capped'), {
        caps: { leadsPerDay: 1 },
        pricing: { type: 'fixed', price: '30.00' },
      }),
      testBuyer('picky', buyers.url('/picky'), { pricing: { type: 'fixed', price: '25.00' } }),
    ]);
    ({ key } = await stack.distribution.createPublisher());

    const sold = validLeadBody({ ssn: SSN });
    for (const body of [
      sold,
      // The capped buyer's one lead of the day is gone: the picky one is asked, and says no.
      validLeadBody({ ssn: SSN }),
      validLeadBody({ ssn: SSN, email: 'not an email' }),
      sold,
      // The capped buyer's configured test behaviour accepts it without a call.
      validLeadBody({ ssn: SSN, testMode: '1' }),
    ]) {
      answers.push(await stack.post(key, body));
    }
    answers.push(await stack.post(UNKNOWN_KEY, validLeadBody({ ssn: SSN })));
    gatewayText = (await gatewayMetrics()).text;
    distributionText = (await distributionMetrics()).text;
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });

  it('answered the leads as the scenario expects', () => {
    expect(answers.map((answer) => [answer.status, answer.body.status])).to.deep.equal([
      [200, 'sold'],
      [200, 'rejected'],
      [400, 'error'],
      [200, 'sold'],
      [200, 'sold'],
      [401, 'error'],
    ]);
  });

  it('gateway: serves the text exposition at GET /metrics, with process metrics', async () => {
    const { status, contentType, text } = await gatewayMetrics();
    expect(status).to.equal(200);
    expect(contentType).to.match(/^text\/plain; version=0\.0\.4/);
    expect(sampled(text, 'process_cpu_user_seconds_total')).to.be.a('number');
    expect(sampled(text, 'nodejs_eventloop_lag_seconds')).to.be.a('number');
  });

  it('gateway: counts requests by route template, method and status', () => {
    const requests = (status: string) =>
      sampled(gatewayText, 'leadflow_http_requests_total', { route: INTAKE_ROUTE, method: 'POST', status });
    expect(requests('200')).to.equal(4);
    expect(requests('400')).to.equal(1);
    expect(requests('401')).to.equal(1);
  });

  it('gateway: observes processingTime of every answer that carries one', () => {
    expect(sampled(gatewayText, 'leadflow_http_processing_time_seconds_count')).to.equal(4);
    const sum = sampled(gatewayText, 'leadflow_http_processing_time_seconds_sum')!;
    const answered = answers
      .filter((answer) => answer.status === 200)
      .reduce((total, answer) => total + answer.body.processingTime, 0);
    expect(sum).to.be.closeTo(answered / 1000, 1e-6);
    expect(sampled(gatewayText, 'leadflow_http_processing_time_seconds_bucket', { le: '0.001' })).to.be.a('number');
    expect(sampled(gatewayText, 'leadflow_http_processing_time_seconds_bucket', { le: '30' })).to.equal(4);
  });

  it('gateway: names an unmatched request "unmatched", never by its path', async () => {
    await fetch(`${stack.baseUrl}/api/intake/${UNKNOWN_KEY}/extra`);
    const { text } = await gatewayMetrics();
    expect(
      sampled(text, 'leadflow_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }),
    ).to.equal(1);
    expect(text).to.not.include(UNKNOWN_KEY);
  });

  it('distribution: serves the text exposition on its metrics port, /metrics only', async () => {
    const { status, contentType, text } = await distributionMetrics();
    expect(status).to.equal(200);
    expect(contentType).to.match(/^text\/plain; version=0\.0\.4/);
    expect(sampled(text, 'process_resident_memory_bytes')).to.be.a('number');
    const elsewhere = await fetch(`http://127.0.0.1:${stack.distribution.service.metricsPort}/`);
    expect(elsewhere.status).to.equal(404);
  });

  it('distribution: counts leads by outcome and test flag', () => {
    const leads = (outcome: string, test: string) =>
      sampled(distributionText, 'leadflow_leads_total', { outcome, test });
    expect(leads('sold', 'false')).to.equal(1);
    expect(leads('rejected', 'false')).to.equal(1);
    expect(leads('invalid', 'false')).to.equal(1);
    expect(leads('replayed', 'false')).to.equal(1);
    expect(leads('sold', 'true')).to.equal(1);
  });

  it("distribution: counts the commits that waited for the embedded store's disk, and the fsyncs that served them", () => {
    const waits = sampled(distributionText, 'leadflow_store_disk_waits_total')!;
    const syncs = sampled(distributionText, 'leadflow_store_syncs_total')!;
    // At least each post's intent and each lead's outcome; an fsync serves one wait or several.
    expect(waits).to.be.at.least(6);
    expect(syncs).to.be.within(1, waits);
    // The fsyncs since the service began serving timed (those of its start are counted above only), each
    // well under a minute.
    const timed = sampled(distributionText, 'leadflow_store_sync_seconds_count')!;
    expect(timed).to.be.within(1, syncs);
    expect(sampled(distributionText, 'leadflow_store_sync_seconds_sum'))
      .to.be.above(0)
      .and.below(timed * 60);
    expect(sampled(distributionText, 'leadflow_store_sync_seconds_bucket', { le: '+Inf' })).to.equal(timed);
  });

  it('distribution: counts buyer attempts and skips of live leads by buyer, and caps reached', () => {
    const attempts = (buyer: string, outcome: string) =>
      sampled(distributionText, 'leadflow_buyer_attempts_total', { buyer_id: ids[buyer]!, kind: 'post', outcome });
    expect(attempts('capped', 'accepted')).to.equal(1);
    expect(attempts('picky', 'rejected')).to.equal(1);
    expect(
      sampled(distributionText, 'leadflow_buyer_skips_total', { buyer_id: ids.capped!, reason: 'capped' }),
    ).to.equal(1);
    expect(sampled(distributionText, 'leadflow_caps_reached_total', { buyer_id: ids.capped! })).to.equal(1);
    expect(sampled(distributionText, 'leadflow_caps_reached_total', { buyer_id: ids.picky! })).to.equal(undefined);
  });

  it('distribution: labels every per-buyer series with the buyer name beside its id', () => {
    const perBuyer = parseSamples(distributionText).filter((sample) => 'buyer_id' in sample.labels);
    expect(perBuyer.map((sample) => sample.name)).to.include.members([
      'leadflow_buyer_attempts_total',
      'leadflow_buyer_skips_total',
      'leadflow_caps_reached_total',
      'leadflow_buyer_latency_seconds_count',
      'leadflow_circuit_state',
    ]);
    const nameOf = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
    for (const sample of perBuyer)
      expect(sample.labels.buyer_name, sample.name).to.equal(nameOf.get(sample.labels.buyer_id!));
  });

  it("distribution: observes buyer latency of live leads' calls", () => {
    const count = (buyer: string) =>
      sampled(distributionText, 'leadflow_buyer_latency_seconds_count', { buyer_id: ids[buyer]!, kind: 'post' });
    expect(count('capped')).to.equal(1);
    expect(count('picky')).to.equal(1);
    expect(
      sampled(distributionText, 'leadflow_buyer_latency_seconds_bucket', { buyer_id: ids.capped!, le: '+Inf' }),
    ).to.equal(1);
  });

  it('distribution: shows the circuit state of every buyer it called, closed here', () => {
    expect(sampled(distributionText, 'leadflow_circuit_state', { buyer_id: ids.capped! })).to.equal(0);
    expect(sampled(distributionText, 'leadflow_circuit_state', { buyer_id: ids.picky! })).to.equal(0);
  });

  it('distribution: counts handled gRPC calls by method and code', () => {
    expect(
      sampled(distributionText, 'leadflow_grpc_server_handled_total', { method: SUBMIT_LEAD, code: 'OK' }),
    ).to.equal(4);
    // The invalid lead is refused with its status, not answered OK.
    expect(
      sampled(distributionText, 'leadflow_grpc_server_handled_total', {
        method: SUBMIT_LEAD,
        code: 'INVALID_ARGUMENT',
      }),
    ).to.equal(1);
    expect(
      sampled(distributionText, 'leadflow_grpc_server_handled_total', {
        method: 'leadflow.admin.v1.AdminService/ApplyBuyers',
        code: 'OK',
      }),
    ).to.equal(1);
  });

  it('carries no key, PII, lead id or clickid in any label', () => {
    const leadIds = answers.map((answer) => answer.body.leadId).filter(Boolean);
    expect(leadIds).to.not.be.empty;
    for (const text of [gatewayText, distributionText]) {
      for (const secret of [key, UNKNOWN_KEY, SSN, SSN.replaceAll('-', ''), 'click-', ...leadIds]) {
        expect(text).to.not.include(secret);
      }
    }
  });
});
