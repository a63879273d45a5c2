import { status } from '@grpc/grpc-js';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { memoryLogger, postLead, testGateway, VALID_LEAD } from '../../support/gateway.js';
import { invalidLead, ScriptedDistribution } from '../../support/scripted-distribution.js';
import { testSpanExporter } from '../../support/tracing.js';

/** A well-formed key, so that it travels as far as a key can. */
const KEY = `lfpk_CANARY${'7f3a9c2e1b5d'.repeat(3)}0`;
const SSN = '535229876';
const BANK_ACCOUNT = '99887766554433';
const CANARIES = [KEY, SSN, BANK_ACCOUNT];

function spanText(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    events: span.events,
    status: span.status,
    links: span.links,
  });
}

describe('gateway: traces and logs', () => {
  const exporter = testSpanExporter();
  const distribution = new ScriptedDistribution();

  before(async () => {
    await distribution.start();
    distribution.keys.set(KEY, { publisherId: 'pub-canary', rateLimitPerMinute: 1000 });
  });
  after(() => distribution.stop());
  beforeEach(() => {
    distribution.reset();
    exporter.reset();
  });

  it('writes one SERVER span per request, named by the route, that the gRPC call joins', async () => {
    const { logger, lines } = memoryLogger();
    const app = testGateway(distribution.address, {}, logger);
    try {
      const response = await postLead(app, KEY, { ...VALID_LEAD, ssn: SSN });
      const server = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
      expect(server).to.have.length(1);
      const span = server[0]!;
      expect(span.name).to.equal('POST /api/intake/{webmasterKey}');
      expect(span.attributes).to.deep.equal({
        'http.request.method': 'POST',
        'http.route': '/api/intake/{webmasterKey}',
        'http.response.status_code': 200,
        'leadflow.processing_time_ms': response.json().processingTime,
      });

      const { traceId, spanId } = span.spanContext();
      const client = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
      expect(client.map((s) => s.name)).to.have.members([
        'leadflow.distribution.v1.DistributionService/ResolvePublisherKey',
        'leadflow.distribution.v1.DistributionService/SubmitLead',
      ]);
      for (const call of client) {
        expect(call.spanContext().traceId).to.equal(traceId);
        expect(call.parentSpanContext?.spanId).to.equal(spanId);
      }
      const traceparent = String(distribution.submitCalls[0]!.metadata.get('traceparent')[0]);
      expect(traceparent).to.match(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

      const logged = lines.map((line) => JSON.parse(line));
      expect(logged).to.have.length(1);
      expect(logged[0]).to.include({
        msg: 'request completed',
        method: 'POST',
        route: '/api/intake/{webmasterKey}',
        statusCode: 200,
        trace_id: traceId,
      });
      expect(logged[0].durationMs).to.be.a('number');
      expect(logged[0]).to.not.have.property('url');
    } finally {
      await app.close();
    }
  });

  it('names a request that matched no route by its method only', async () => {
    const app = testGateway(distribution.address);
    try {
      await app.inject({ method: 'GET', url: `/somewhere/${KEY}` });
      const [span] = exporter.getFinishedSpans();
      expect(span!.name).to.equal('GET');
      expect(span!.attributes).to.deep.equal({ 'http.request.method': 'GET', 'http.response.status_code': 404 });
    } finally {
      await app.close();
    }
  });

  it('canary: the key, the SSN and the bank account number appear in no log line, span or answer', async () => {
    const { logger, lines } = memoryLogger();
    const app = testGateway(distribution.address, { intakeDeadlineMs: 300 }, logger);
    const lead = { ...VALID_LEAD, ssn: SSN, bankAccountNumber: BANK_ACCOUNT };
    const answers: string[] = [];
    const record = async (
      response: Promise<{ body: string; headers: Record<string, unknown>; statusCode: number }>,
    ) => {
      const { body, headers, statusCode } = await response;
      answers.push(JSON.stringify({ body, headers, statusCode }));
      return statusCode;
    };
    try {
      expect(await record(postLead(app, KEY, lead))).to.equal(200);

      distribution.submit = () => invalidLead({ ssn: 'is not a number the SSA issues' });
      expect(await record(postLead(app, KEY, lead))).to.equal(400);

      distribution.submit = () => ({ code: status.INTERNAL, details: 'boom' });
      expect(await record(postLead(app, KEY, lead))).to.equal(500);

      distribution.reset();
      distribution.submitDelayMs = 1000;
      expect(await record(postLead(app, KEY, lead))).to.equal(504);
      distribution.submitDelayMs = 0;

      expect(await record(postLead(app, KEY, `{"ssn": "${SSN}", "bankAccountNumber": "${BANK_ACCOUNT}"`))).to.equal(
        400,
      );
      expect(await record(postLead(app, KEY, `{"ssn": ${SSN}, "bankAccountNumber": ${BANK_ACCOUNT}}`))).to.equal(200);
      expect(await record(postLead(app, KEY, `{"ssn": "${SSN}", "__proto__": {"x": "${BANK_ACCOUNT}"}}`))).to.equal(
        200,
      );
      expect(await record(postLead(app, KEY, JSON.stringify({ ...lead, userAgent: 'x'.repeat(70_000) })))).to.equal(
        413,
      );
      expect(await record(postLead(app, KEY, JSON.stringify(lead), 'text/plain'))).to.equal(415);
      expect(await record(postLead(app, `${KEY}x`, lead))).to.equal(401);
      expect(await record(postLead(app, `${KEY}%zz`, lead))).to.equal(400);
      expect(await record(app.inject({ method: 'GET', url: `/api/intake/${KEY}?ssn=${SSN}` }))).to.equal(405);
    } finally {
      await app.close();
    }

    const spans = exporter.getFinishedSpans();
    expect(spans.length).to.be.above(10);
    expect(lines.length).to.be.above(10);
    const places = { logs: lines.join('\n'), spans: spans.map(spanText).join('\n'), answers: answers.join('\n') };
    for (const [place, text] of Object.entries(places)) {
      for (const canary of CANARIES) expect(text, `${canary} in ${place}`).to.not.include(canary);
    }
  });
});
