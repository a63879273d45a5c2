import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../support/buyer-server.js';
import { testBuyer } from '../../support/buyers.js';
import { bearer, call } from '../../support/grpc.js';
import { check, healthClient } from '../../support/grpc-clients.js';
import { jsonLines } from '../../support/json-lines.js';
import { validLeadBody } from '../../support/leads.js';
import { freePorts } from '../../support/ports.js';
import { exited, type RunningProcess, startProcess, stopProcess } from '../../support/source-process.js';
import { startTestStack, type TestStack } from '../../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';
import { testSpanExporter } from '../../support/tracing.js';

const SUBMIT_LEAD = 'leadflow.distribution.v1.DistributionService/SubmitLead';
/** Attribute names the semantic conventions replaced; none may appear beside their successors. */
const DEPRECATED_ATTRIBUTES = [
  'rpc.system',
  'rpc.service',
  'rpc.grpc.status_code',
  'http.method',
  'http.status_code',
  'http.url',
  'net.peer.name',
];

async function waitUntil(what: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > giveUpAt) throw new Error(`${what} not ready in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('observability: one version of the trace conventions, no traces of probes', function () {
  this.timeout(60_000);
  const exporter = testSpanExporter();
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let stack: TestStack;

  before(async () => {
    database = await sqliteDatabase();
    buyers = await startBuyerServer();
    buyers.behave('/conventions', { kind: 'accept' });
    stack = await startTestStack(database);
    await stack.distribution.applyBuyers([testBuyer('conventions', buyers.url('/conventions'))]);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });
  beforeEach(() => exporter.reset());

  it('spells the gRPC call the same on the gateway CLIENT span and the service SERVER span (rpc.system.name, rpc.status_code)', async () => {
    const { key } = await stack.distribution.createPublisher();
    expect((await stack.post(key, validLeadBody())).body.status).to.equal('sold');
    const spans = exporter.getFinishedSpans();
    const ends = (kind: SpanKind): ReadableSpan =>
      spans.find((span) => span.kind === kind && span.name === SUBMIT_LEAD)!;
    for (const span of [ends(SpanKind.CLIENT), ends(SpanKind.SERVER)]) {
      expect(span.attributes, SpanKind[span.kind]).to.deep.equal({
        'rpc.system.name': 'grpc',
        'rpc.method': SUBMIT_LEAD,
        'rpc.status_code': 'OK',
      });
    }
    for (const span of spans)
      expect(Object.keys(span.attributes), span.name).to.not.include.any.members(DEPRECATED_ATTRIBUTES);
  });

  it('names a failed call by its status code and error.type', async () => {
    const admin = stack.distribution.admin;
    const token = stack.distribution.service.adminToken;
    const refused = await call(
      admin.getLead.bind(admin),
      { leadId: 'lead_00000000000000000000000000' },
      bearer(token),
    ).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).to.equal('refused');
    const server = exporter.getFinishedSpans().find((span) => span.name === 'leadflow.admin.v1.AdminService/GetLead')!;
    expect(server.attributes).to.deep.equal({
      'rpc.system.name': 'grpc',
      'rpc.method': 'leadflow.admin.v1.AdminService/GetLead',
      'rpc.status_code': 'NOT_FOUND',
      'error.type': 'NOT_FOUND',
    });
  });

  it('records no span for health probes, on the gateway or the service', async () => {
    for (const probe of ['/health/live', '/health/ready']) {
      expect((await fetch(`${stack.baseUrl}${probe}`)).status, probe).to.equal(200);
      expect(
        (await fetch(`http://127.0.0.1:${stack.distribution.service.metricsPort}${probe}`)).status,
        probe,
      ).to.equal(200);
    }
    const health = healthClient(stack.distribution.address);
    try {
      expect(await check(health, '')).to.equal('SERVING');
    } finally {
      health.close();
    }
    expect(exporter.getFinishedSpans().map((span) => `${SpanKind[span.kind]} ${span.name}`)).to.deep.equal([]);
  });
});

describe('observability: OTEL_TRACES_EXPORTER', function () {
  this.timeout(90_000);

  it('with console, both processes write the spans of one lead to stderr, joined in one trace, and none of probes', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-console-traces-'));
    const [grpcPort, httpPort] = await freePorts(2);
    const env = {
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_GRPC_PORT: String(grpcPort),
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_HTTP_PORT: String(httpPort),
      LEADFLOW_HTTP_HOST: '127.0.0.1',
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      REDIS_URL: '',
      DATABASE_URL: '',
      LEADFLOW_DEMO_SIMULATOR_URL: 'http://127.0.0.1:9',
    };
    let distribution: RunningProcess | undefined;
    let gateway: RunningProcess | undefined;
    try {
      distribution = startProcess('services/distribution/src/main.ts', env);
      let key = '';
      await waitUntil('demo key', async () => {
        key = (await readFile(path.join(dataDir, 'demo-key.txt'), 'utf8')).trim();
        return key.length > 0;
      });
      gateway = startProcess('gateway/src/main.ts', env);
      const baseUrl = `http://127.0.0.1:${httpPort}`;
      await waitUntil('gateway', async () => (await fetch(`${baseUrl}/health/ready`)).ok);
      const answer = await fetch(`${baseUrl}/api/intake/${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(validLeadBody()),
      });
      expect(answer.status).to.equal(200);
      expect([await stopProcess(gateway), await stopProcess(distribution)]).to.deep.equal([0, 0]);

      // One JSON object per line: the span lines on stderr, the log lines on stdout.
      for (const running of [gateway, distribution]) jsonLines(running.stdout, 'stdout');
      type PrintedSpan = { traceId: string; name: string; attributes: Record<string, unknown> };
      const gatewaySpans = jsonLines(gateway.stderr, 'gateway stderr') as PrintedSpan[];
      const serviceSpans = jsonLines(distribution.stderr, 'distribution stderr') as PrintedSpan[];
      const traceId = gatewaySpans.find((span) => span.name === 'POST /api/intake/{webmasterKey}')?.traceId;
      expect(traceId, gateway.output.join('')).to.be.a('string');
      const server = serviceSpans.find((span) => span.name === SUBMIT_LEAD);
      expect(server?.traceId).to.equal(traceId);
      expect(server?.attributes).to.include({ 'rpc.system.name': 'grpc' });
      expect(gatewaySpans.find((span) => span.name === SUBMIT_LEAD)?.attributes).to.include({
        'rpc.system.name': 'grpc',
      });
      // The readiness probes' key checks are not traced: the one ResolvePublisherKey span is the lead's.
      expect(gatewaySpans.map((span) => span.name)).to.not.include('GET /health/ready');
      expect(
        serviceSpans.filter((span) => span.name === 'leadflow.distribution.v1.DistributionService/ResolvePublisherKey'),
      ).to.have.length(1);
    } finally {
      for (const running of [gateway, distribution])
        if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
      for (const running of [gateway, distribution]) if (running) await exited(running);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
