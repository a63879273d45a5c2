import { SpanJsonLinesExporter } from '@leadflow/service-kit/span-json-lines';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';

describe('SpanJsonLinesExporter', () => {
  it('writes each finished span as one JSON object on one line, ids, kind, status, times and attributes readable', async () => {
    const written: string[] = [];
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new SpanJsonLinesExporter((line) => written.push(line)))],
    });
    const tracer = provider.getTracer('leadflow-gateway');
    const parent = tracer.startSpan('POST /api/intake/{webmasterKey}', { kind: SpanKind.SERVER });
    const child = tracer.startSpan(
      'leadflow.buyer.post',
      { kind: SpanKind.CLIENT, attributes: { 'server.address': 'lender.example', attempt: 2 } },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    // A message over several lines stays on one line of JSON.
    child.addEvent('retry', { reason: 'timeout\nafter 300 ms' });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'buyer\nunreachable' });
    child.end();
    parent.end();
    await provider.shutdown();

    expect(written).to.have.length(2);
    for (const line of written) expect(line.indexOf('\n')).to.equal(line.length - 1);
    const [post, intake] = written.map((line) => JSON.parse(line));
    expect(post).to.deep.include({
      traceId: parent.spanContext().traceId,
      spanId: child.spanContext().spanId,
      parentSpanId: parent.spanContext().spanId,
      name: 'leadflow.buyer.post',
      kind: 'CLIENT',
      status: 'ERROR',
      statusMessage: 'buyer\nunreachable',
      attributes: { 'server.address': 'lender.example', attempt: 2 },
      scope: 'leadflow-gateway',
    });
    expect(post.resource).to.have.property('service.name');
    expect(post.events).to.have.length(1);
    expect(post.events[0]).to.deep.include({ name: 'retry', attributes: { reason: 'timeout\nafter 300 ms' } });
    expect(new Date(post.events[0].time).getTime()).to.be.at.least(new Date(post.startTime).getTime());
    expect(post.durationMs).to.be.a('number').and.at.least(0);
    expect(intake).to.deep.include({ kind: 'SERVER', status: 'UNSET' });
    expect(intake).to.not.have.property('parentSpanId');
  });
});
