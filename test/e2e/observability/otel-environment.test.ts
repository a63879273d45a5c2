import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { jsonLines } from '../../support/json-lines.js';
import { validLeadBody } from '../../support/leads.js';
import { type OtlpReceiver, startOtlpGrpcReceiver, startOtlpReceiver } from '../../support/otlp-receiver.js';
import { freePorts } from '../../support/ports.js';
import {
  exited,
  isRunning,
  type RunningProcess,
  startProcess,
  stopProcess,
  waitForProcess,
} from '../../support/source-process.js';
import { waitUntil } from '../../support/wait-until.js';

type Env = Record<string, string>;

const INTAKE_ROUTE = '/api/intake/{webmasterKey}';
const INTAKE_SPAN = `POST ${INTAKE_ROUTE}`;
const SUBMIT_LEAD = 'leadflow.distribution.v1.DistributionService/SubmitLead';

/** What the processes were told, and what they did with one lead. */
interface LeadRun {
  status: number;
  exitCodes: (number | null)[];
  gateway: RunningProcess;
  distribution: RunningProcess;
}

/** The gateway's "request completed" log line of the lead. */
function intakeLogLine(gateway: RunningProcess): Record<string, unknown> {
  const line = jsonLines(gateway.stdout, 'gateway stdout').find(
    (entry) => entry.msg === 'request completed' && entry.route === INTAKE_ROUTE,
  );
  expect(line, gateway.output.join('')).to.exist;
  return line!;
}

/**
 * Starts the distribution service and the gateway as processes, with no OTEL_ variable of this process
 * and the given ones (`both`, then each one's own), posts one lead and stops both with SIGTERM.
 */
async function runLead(settings: { both?: Env; gateway?: Env; distribution?: Env }): Promise<LeadRun> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-otel-'));
  const [grpcPort, httpPort] = await freePorts(2);
  const base: Env = {
    LEADFLOW_DATA_DIR: dataDir,
    LEADFLOW_GRPC_PORT: String(grpcPort),
    LEADFLOW_METRICS_PORT: '0',
    LEADFLOW_HTTP_PORT: String(httpPort),
    LEADFLOW_HTTP_HOST: '127.0.0.1',
    LEADFLOW_LOG_FORMAT: 'json',
    REDIS_URL: '',
    DATABASE_URL: '',
    // Demo buyers nobody answers for: the lead is pinged (CLIENT spans) and answered unsold.
    LEADFLOW_DEMO_SIMULATOR_URL: 'http://127.0.0.1:9',
    ...settings.both,
  };
  const options = { inherits: (name: string) => !name.startsWith('OTEL_') };
  let distribution: RunningProcess | undefined;
  let gateway: RunningProcess | undefined;
  try {
    distribution = startProcess('services/distribution/src/main.ts', { ...base, ...settings.distribution }, options);
    let key = '';
    await waitForProcess('demo key', distribution, async () => {
      key = (await readFile(path.join(dataDir, 'demo-key.txt'), 'utf8').catch(() => '')).trim();
      return key.length > 0;
    });
    gateway = startProcess('gateway/src/main.ts', { ...base, ...settings.gateway }, options);
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    await waitForProcess('gateway', gateway, async () => (await fetch(`${baseUrl}/health/ready`)).ok);
    const answer = await fetch(`${baseUrl}/api/intake/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validLeadBody()),
    });
    await answer.text();
    const exitCodes = [await stopProcess(gateway, 30_000), await stopProcess(distribution, 30_000)];
    return { status: answer.status, exitCodes, gateway, distribution };
  } finally {
    for (const running of [gateway, distribution]) if (running?.child.exitCode === null) running.child.kill('SIGKILL');
    for (const running of [gateway, distribution]) if (running) await exited(running);
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('observability: the standard OTEL_* variables configure tracing in both services', function () {
  this.timeout(120_000);
  const receivers: OtlpReceiver[] = [];
  const receiver = async (start: () => Promise<OtlpReceiver>) => {
    const started = await start();
    receivers.push(started);
    return started;
  };
  after(async () => {
    for (const started of receivers) await started.close();
  });

  it('exports to the endpoint, protocol and headers set, under the service name and resource attributes set', async () => {
    const http = await receiver(startOtlpReceiver);
    const grpc = await receiver(startOtlpGrpcReceiver);
    const resourceAttributes = 'deployment.environment.name=staging,leadflow.region=us-east';
    const run = await runLead({
      both: {
        OTEL_RESOURCE_ATTRIBUTES: resourceAttributes,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        // No batch leaves before SIGTERM: what arrives, the shutdown flushed.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      gateway: {
        OTEL_SERVICE_NAME: 'edge-gateway',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${http.endpoint}/collector/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=gateway%20token',
        OTEL_TRACES_SAMPLER_ARG: '1',
      },
      distribution: {
        OTEL_EXPORTER_OTLP_ENDPOINT: grpc.endpoint,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=distribution-token',
        // The service follows the gateway's decision (parent-based): its own ratio draws nothing.
        OTEL_TRACES_SAMPLER_ARG: '0',
      },
    });
    expect(run.status).to.equal(200);
    expect(run.exitCodes).to.deep.equal([0, 0]);

    expect(http.exports, 'gateway exports').to.not.be.empty;
    for (const received of http.exports) {
      expect(received.path).to.equal('/collector/traces');
      expect(received.contentType).to.match(/^application\/json/);
      expect(received.headers['x-collector-token']).to.equal('gateway token');
    }
    expect(grpc.exports, 'distribution exports').to.not.be.empty;
    for (const received of grpc.exports) expect(received.headers['x-collector-token']).to.equal('distribution-token');

    const gatewaySpans = http.spans();
    const serviceSpans = grpc.spans();
    expect(new Set(gatewaySpans.map((span) => span.service))).to.deep.equal(new Set(['edge-gateway']));
    expect(new Set(serviceSpans.map((span) => span.service))).to.deep.equal(new Set(['leadflow-distribution']));
    for (const span of [...gatewaySpans, ...serviceSpans]) {
      expect(span.resource).to.include({ 'deployment.environment.name': 'staging', 'leadflow.region': 'us-east' });
      // Neither the process's command line and owner nor the host's machine id.
      expect(span.resource, span.name).to.have.property('host.name').that.is.a('string');
      const leaks = Object.keys(span.resource).filter((name) => name.startsWith('process.') || name === 'host.id');
      expect(leaks, span.name).to.deep.equal([]);
    }
    const intake = gatewaySpans.find((span) => span.name === INTAKE_SPAN);
    expect(intake, 'intake span').to.exist;
    const server = serviceSpans.find((span) => span.name === SUBMIT_LEAD);
    expect(server?.traceId, 'one trace across both services').to.equal(intake!.traceId);
    expect(intakeLogLine(run.gateway).trace_id).to.equal(intake!.traceId);
  });

  it('exports nothing with OTEL_TRACES_SAMPLER=always_off', async () => {
    const http = await receiver(startOtlpReceiver);
    const run = await runLead({
      both: { OTEL_EXPORTER_OTLP_ENDPOINT: http.endpoint, OTEL_TRACES_SAMPLER: 'always_off' },
    });
    expect([run.status, ...run.exitCodes]).to.deep.equal([200, 0, 0]);
    expect(http.exports).to.deep.equal([]);
    expect(intakeLogLine(run.gateway)).to.not.have.property('trace_id');
  });

  it('exports nothing with OTEL_SDK_DISABLED=true', async () => {
    const http = await receiver(startOtlpReceiver);
    const run = await runLead({
      both: { OTEL_EXPORTER_OTLP_ENDPOINT: http.endpoint, OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' },
    });
    expect([run.status, ...run.exitCodes]).to.deep.equal([200, 0, 0]);
    expect(http.exports).to.deep.equal([]);
    expect(intakeLogLine(run.gateway)).to.not.have.property('trace_id');
  });

  it('records no span when no exporter and no endpoint is set, whatever else is', async () => {
    // The SDK alone would send to http://localhost:4318 by default; a span recorded shows as a trace id in the logs.
    const run = await runLead({
      both: {
        OTEL_SERVICE_NAME: 'unconfigured',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=unused',
        OTEL_TRACES_SAMPLER: 'always_on',
      },
    });
    expect([run.status, ...run.exitCodes]).to.deep.equal([200, 0, 0]);
    expect(intakeLogLine(run.gateway)).to.not.have.property('trace_id');
  });

  it('with otlp,console: one JSON line per span on stderr, the same spans over OTLP (http/protobuf), stdout only JSON logs', async () => {
    const http = await receiver(startOtlpReceiver);
    const run = await runLead({
      both: { OTEL_TRACES_EXPORTER: 'otlp,console', OTEL_EXPORTER_OTLP_ENDPOINT: http.endpoint },
    });
    expect([run.status, ...run.exitCodes]).to.deep.equal([200, 0, 0]);
    for (const received of http.exports) {
      expect(received.path).to.equal('/v1/traces');
      expect(received.contentType).to.equal('application/x-protobuf');
    }
    const exported = http.spans();
    for (const [name, running] of Object.entries({ gateway: run.gateway, distribution: run.distribution })) {
      const logs = jsonLines(running.stdout, `${name} stdout`);
      expect(logs, `${name} logs`).to.not.be.empty;
      for (const line of logs) expect(line, `${name} log line`).to.have.property('msg');
      const printed = jsonLines(running.stderr, `${name} stderr`);
      expect(printed, `${name} spans`).to.not.be.empty;
      const service = `leadflow-${name}`;
      for (const span of printed) expect((span.resource as Record<string, unknown>)['service.name']).to.equal(service);
      expect(printed.map((span) => span.spanId).sort(), `${name}: the spans exported`).to.deep.equal(
        exported
          .filter((span) => span.service === service)
          .map((span) => span.spanId)
          .sort(),
      );
    }
    const printed = [...run.gateway.stderr, ...run.distribution.stderr];
    const spans = jsonLines(printed, 'stderr');
    const intake = spans.find((span) => span.name === INTAKE_SPAN)!;
    expect(intake).to.include({ kind: 'SERVER', status: 'UNSET' });
    expect(intake.attributes).to.include({ 'http.response.status_code': 200 });
    const server = spans.find((span) => span.name === SUBMIT_LEAD && span.kind === 'SERVER')!;
    expect(server.traceId).to.equal(intake.traceId);
  });

  it("writes the SDK's own diagnostics as JSON log lines, at OTEL_LOG_LEVEL", async () => {
    const [httpPort] = await freePorts(1);
    const gateway = startProcess(
      'gateway/src/main.ts',
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url',
        OTEL_LOG_LEVEL: 'info',
        LEADFLOW_HTTP_PORT: String(httpPort),
        LEADFLOW_HTTP_HOST: '127.0.0.1',
        LEADFLOW_LOG_FORMAT: 'json',
        REDIS_URL: '',
      },
      { inherits: (name) => !name.startsWith('OTEL_') },
    );
    try {
      await waitForProcess(
        'gateway',
        gateway,
        async () => (await fetch(`http://127.0.0.1:${httpPort}/health/live`)).ok,
      );
    } finally {
      expect(await stopProcess(gateway, 30_000)).to.equal(0);
    }
    const diagnostics = jsonLines(gateway.stdout, 'gateway stdout').filter(
      (line) => line.component === 'opentelemetry',
    );
    expect(diagnostics.map((line) => [line.level, line.msg])).to.deep.include([
      40,
      "Configuration: Could not parse environment-provided export URL: 'not a url', falling back to undefined",
    ]);
  });

  it('refuses an exporter or a protocol it does not know, by name, at start', async () => {
    const refusals: string[] = [];
    for (const settings of [
      { OTEL_TRACES_EXPORTER: 'otlp,jaeger' } as Env,
      { OTEL_TRACES_EXPORTER: 'none,console' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' },
    ]) {
      const [httpPort] = await freePorts(1);
      const gateway = startProcess(
        'gateway/src/main.ts',
        { ...settings, LEADFLOW_HTTP_PORT: String(httpPort), LEADFLOW_HTTP_HOST: '127.0.0.1', REDIS_URL: '' },
        { inherits: (name) => !name.startsWith('OTEL_') },
      );
      try {
        // A setting taken for good would leave it serving: that fails here rather than waiting for an exit.
        await waitUntil(
          'exit or readiness',
          async () => !isRunning(gateway) || (await fetch(`http://127.0.0.1:${httpPort}/health/live`)).ok,
        );
        expect(isRunning(gateway), `${JSON.stringify(settings)} taken: ${gateway.output.join('')}`).to.equal(false);
        expect(await exited(gateway), gateway.output.join('')).to.equal(1);
        refusals.push(gateway.stderr.join('').trim());
      } finally {
        await stopProcess(gateway);
      }
    }
    expect(refusals).to.have.length(3);
    expect(refusals[0]).to.match(/^leadflow-gateway: OTEL_TRACES_EXPORTER names jaeger: .*otlp, console, none/);
    expect(refusals[1]).to.match(/^leadflow-gateway: OTEL_TRACES_EXPORTER=none goes alone/);
    expect(refusals[2]).to.match(/^leadflow-gateway: OTEL_EXPORTER_OTLP_PROTOCOL names thrift: .*http\/protobuf/);
    for (const refusal of refusals) expect(refusal.split('\n'), refusal).to.have.length(1);
  });
});
