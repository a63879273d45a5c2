import { credentials, status } from '@grpc/grpc-js';
import { type RunningDistribution, startDistribution } from '@leadflow/distribution/src/server';
import { AdminServiceClient } from '@leadflow/proto/leadflow/admin/v1/admin';
import { DistributionServiceClient, Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { context, INVALID_SPAN_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../support/buyer-server.js';
import { testBuyer } from '../../support/buyers.js';
import { bearer, call } from '../../support/grpc.js';
import { validLeadBody } from '../../support/leads.js';
import { sampled, scrape } from '../../support/metrics-text.js';
import { startTestStack, type TestStack } from '../../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';
import { testSpanExporter } from '../../support/tracing.js';

const SUBMIT_LEAD = 'leadflow.distribution.v1.DistributionService/SubmitLead';
const SSN = '535229876';
const BUYER_SECRET = 'buyerApiKeyCANARY42';
const BUYER_PATH = `/leads/inbound?api_key=${BUYER_SECRET}`;

function memoryLines(): { lines: () => Record<string, unknown>[]; destination: { write(line: string): void } } {
  const written: string[] = [];
  return {
    lines: () => written.map((line) => JSON.parse(line)),
    destination: { write: (line) => void written.push(line) },
  };
}

function spanText(span: ReadableSpan): string {
  return JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status });
}

describe('observability: trace ids in logs, buyer hosts in spans (tracing on)', function () {
  this.timeout(60_000);
  const exporter = testSpanExporter();
  let database: TestDatabase;

  before(async () => {
    database = await sqliteDatabase();
  });
  after(() => database?.drop());
  beforeEach(() => exporter.reset());

  it('puts the trace and span id of the SubmitLead call on a line logged while handling it', async () => {
    const { lines, destination } = memoryLines();
    const logger = createLogger('leadflow-distribution', 'info', destination);
    const config = loadDistributionConfig({ ...database.env, LEADFLOW_GRPC_PORT: '0', LEADFLOW_METRICS_PORT: '0' });
    const seller = {
      async sell(): Promise<never> {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('the seller broke');
      },
    };
    const service: RunningDistribution = await startDistribution(config, { logger, seller });
    const address = `127.0.0.1:${service.port}`;
    const admin = new AdminServiceClient(address, credentials.createInsecure());
    const client = new DistributionServiceClient(address, credentials.createInsecure());
    try {
      const created = await call(
        admin.createPublisher.bind(admin),
        { name: 'Traced publisher', rateLimitPerMinute: 0, payoutShareBps: 0 },
        bearer(service.adminToken),
      );
      const lead = Lead.fromPartial(validLeadBody({ ssn: SSN }) as Partial<Lead>);
      const failure = await call(client.submitLead.bind(client), {
        webmasterKey: created.key,
        lead,
        nonStringFields: [],
      }).then(
        () => undefined,
        (error: { code: number }) => error.code,
      );
      // A failed sale step costs the lead nothing: the caller is told to retry.
      expect(failure).to.equal(status.UNAVAILABLE);

      const server = exporter
        .getFinishedSpans()
        .find((span) => span.kind === SpanKind.SERVER && span.name === SUBMIT_LEAD)!;
      const failed = lines().find((line) => line.msg === 'a sale step failed; the lead is left for the retry');
      expect(failed).to.include({ trace_id: server.spanContext().traceId });
      expect(failed?.leadId).to.be.a('string');
      expect(JSON.stringify(lines())).to.not.include(created.key).and.not.include(SSN);

      const metrics = (await scrape(`http://127.0.0.1:${service.metricsPort}/metrics`)).text;
      expect(
        sampled(metrics, 'leadflow_grpc_server_handled_total', { method: SUBMIT_LEAD, code: 'UNAVAILABLE' }),
      ).to.equal(1);
    } finally {
      admin.close();
      client.close();
      await service.close();
    }
  });

  it('leaves the ids out where the active span is a no-op one (tracing off)', () => {
    const { lines, destination } = memoryLines();
    const logger = createLogger('test', 'info', destination);
    context.with(trace.setSpan(context.active(), trace.wrapSpanContext(INVALID_SPAN_CONTEXT)), () =>
      logger.info('no trace'),
    );
    expect(lines()[0]).to.not.have.any.keys('trace_id', 'span_id');
  });

  describe('through the whole stack', () => {
    let buyers: TestBuyerServer;
    let stack: TestStack;

    before(async () => {
      buyers = await startBuyerServer();
      buyers.behave(BUYER_PATH, { kind: 'accept' });
      stack = await startTestStack(database);
      await stack.distribution.applyBuyers([testBuyer('keyed-url', buyers.url(BUYER_PATH))]);
    });
    after(async () => {
      await stack?.close();
      await buyers?.close();
    });

    it('names the buyer by host only on its CLIENT span: no path, no query with its API key', async () => {
      const { key } = await stack.distribution.createPublisher();
      const answer = await stack.post(key, validLeadBody({ ssn: SSN }));
      expect(answer.body.status).to.equal('sold');
      expect(buyers.received(BUYER_PATH)).to.have.length(1);

      const spans = exporter.getFinishedSpans();
      const post = spans.find((span) => span.name === 'leadflow.buyer.post')!;
      expect(post.kind).to.equal(SpanKind.CLIENT);
      expect(post.attributes['server.address']).to.equal('127.0.0.1');
      const server = spans.find((span) => span.kind === SpanKind.SERVER && span.name === SUBMIT_LEAD)!;
      expect(post.spanContext().traceId, "in the lead's trace").to.equal(server.spanContext().traceId);
      expect(post.parentSpanContext?.spanId, 'a child of a span of the sale, not a root').to.be.a('string');
      for (const span of spans) {
        const text = spanText(span);
        for (const secret of [BUYER_SECRET, '/leads/inbound', key, SSN]) expect(text, span.name).to.not.include(secret);
      }
    });
  });
});
