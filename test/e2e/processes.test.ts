import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoMarketConfigPath, loadSimulatorConfig, type Simulator, startSimulator } from '@leadflow/simulator';
import { expect } from 'chai';
import { validLeadBody } from '../support/leads.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';
import { freePort } from '../support/ports.js';
import { type RunningProcess, startProcess, stopProcess } from '../support/source-process.js';
import { waitUntil } from '../support/wait-until.js';

// Canary values: each must never appear outside the encrypted column.
const CANARY = {
  ssn: '219-09-9999',
  bankAccountNumber: '7777123456789',
  bankAba: '011000015',
  dob: '1979-03-14',
  driversLicenseNumber: 'D1234567CANARY',
};

describe('gateway and distribution service as processes: one trace per lead, no secret anywhere', function () {
  this.timeout(120_000);
  let dataDir: string;
  let receiver: OtlpReceiver;
  let simulator: Simulator;
  let distribution: RunningProcess;
  let gateway: RunningProcess;
  let baseUrl: string;
  let key: string;
  const answers: string[] = [];
  const exitCodes: (number | null)[] = [];

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-processes-'));
    receiver = await startOtlpReceiver();
    const market = await loadSimulatorConfig(demoMarketConfigPath());
    simulator = await startSimulator({ host: '127.0.0.1', port: 0, endpoints: market.endpoints, seed: market.seed });
    const grpcPort = String(await freePort());
    const httpPort = String(await freePort());
    const env = {
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_GRPC_PORT: grpcPort,
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_HTTP_PORT: httpPort,
      LEADFLOW_HTTP_HOST: '127.0.0.1',
      LEADFLOW_LOG_LEVEL: 'trace',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      REDIS_URL: '',
      DATABASE_URL: '',
      LEADFLOW_DEMO_SIMULATOR_URL: simulator.url,
    };
    distribution = startProcess('services/distribution/src/main.ts', env);
    await waitUntil('demo key', async () => {
      key = (await readFile(path.join(dataDir, 'demo-key.txt'), 'utf8')).trim();
      return key.length > 0;
    });
    gateway = startProcess('gateway/src/main.ts', env);
    baseUrl = `http://127.0.0.1:${httpPort}`;
    await waitUntil('gateway', async () => (await fetch(`${baseUrl}/health/ready`)).ok);

    const post = async (webmasterKey: string, body: unknown) => {
      const response = await fetch(`${baseUrl}/api/intake/${webmasterKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      answers.push(`${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`);
    };
    await post(key, validLeadBody({ ...CANARY, clickid: 'canary-sold' }));
    await post(key, validLeadBody({ ...CANARY, clickid: 'canary-sold' }));
    await post(key, validLeadBody({ ...CANARY, clickid: 'canary-sold', firstName: 'Changed' }));
    await post(
      key,
      validLeadBody({ ...CANARY, email: CANARY.ssn, zip: CANARY.bankAccountNumber, homePhone: CANARY.bankAba }),
    );
    await post(key, { ssn: 219099999, bankAccountNumber: CANARY.bankAccountNumber });
    await post(`${key}x`, validLeadBody(CANARY));
    await post(key.slice(0, -1), validLeadBody(CANARY));

    exitCodes.push(await stopProcess(gateway), await stopProcess(distribution));
  });
  after(async () => {
    for (const running of [gateway, distribution]) if (running?.child.exitCode === null) running.child.kill('SIGKILL');
    await receiver?.close();
    await simulator?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answered every request and shut both processes down cleanly on SIGTERM', () => {
    expect(answers.map((answer) => answer.slice(0, 3))).to.deep.equal([
      '200',
      '200',
      '400',
      '400',
      '400',
      '401',
      '401',
    ]);
    expect(exitCodes).to.deep.equal([0, 0]);
  });

  it('exported one trace from the gateway through gRPC into the service, with its spans', () => {
    const spans = receiver.spans();
    const intake = spans.find(
      (span) =>
        span.service === 'leadflow-gateway' &&
        span.name === 'POST /api/intake/{webmasterKey}' &&
        span.attributes['http.response.status_code'] === 200,
    );
    expect(intake, 'gateway span').to.exist;
    expect(intake!.attributes['leadflow.processing_time_ms']).to.be.a('number');
    const trace = spans.filter((span) => span.traceId === intake!.traceId);
    const names = trace.map((span) => `${span.service} ${span.name}`);
    expect(names).to.include.members([
      'leadflow-distribution leadflow.distribution.v1.DistributionService/SubmitLead',
      'leadflow-distribution leadflow.validate',
      'leadflow-distribution leadflow.store',
      'leadflow-distribution leadflow.select',
      'leadflow-distribution leadflow.record',
    ]);
    const server = trace.find((span) => span.name.endsWith('/SubmitLead'))!;
    expect(trace.map((span) => span.spanId)).to.include(server.parentSpanId);
  });

  it('let no key, SSN, bank number, date of birth or license number into logs, spans or answers', () => {
    const places = {
      logs: [...distribution.output, ...gateway.output].join(''),
      spans: receiver.rawBodies.join(''),
      answers: answers.join('\n'),
    };
    expect(places.logs.length).to.be.above(0);
    expect(places.spans.length).to.be.above(0);
    // The date of birth in the forms a leak would take; not its year alone, which any epoch time may hold.
    const secrets = [key, key.slice(0, -1), ...Object.values(CANARY), '219099999', '1979-03', '19790314', '03/14/1979'];
    for (const [place, text] of Object.entries(places)) {
      for (const secret of secrets)
        expect(text.includes(secret), `${place} contain ${secret.slice(0, 3)}…`).to.equal(false);
    }
  });
});
