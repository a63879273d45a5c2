import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { validLeadBody } from '../support/leads.js';
import { freePorts } from '../support/ports.js';
import { runLeadflow } from '../support/run-leadflow.js';
import { exited, type RunningProcess, startProcess, waitForProcess } from '../support/source-process.js';
import { productionSecretsEnv } from '../support/test-database.js';
import { makeCertificates, servedCertificateSerial, type TestCertificates } from '../support/tls-certificates.js';

describe('gateway and distribution service as processes, as deployed: mutual TLS beyond loopback', function () {
  this.timeout(120_000);
  let certs: TestCertificates;
  let dataDir: string;
  let buyers: TestBuyerServer;
  let distribution: RunningProcess;
  let gateway: RunningProcess;
  let baseUrl: string;
  let adminEnv: Record<string, string>;
  let grpcPort: number;
  const secrets = productionSecretsEnv();

  before(async () => {
    certs = await makeCertificates();
    dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-tls-processes-'));
    buyers = await startBuyerServer();
    buyers.behave('/lender', { kind: 'accept' });
    let metricsPort: number;
    let httpPort: number;
    [grpcPort, metricsPort, httpPort] = await freePorts(3);
    const common = {
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_LOG_LEVEL: 'info',
      DATABASE_URL: '',
      REDIS_URL: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
    };
    // Every interface, as in a container: allowed only because TLS is configured.
    distribution = startProcess('services/distribution/src/main.ts', {
      ...common,
      ...secrets,
      LEADFLOW_GRPC_HOST: '0.0.0.0',
      LEADFLOW_GRPC_PORT: String(grpcPort),
      LEADFLOW_METRICS_PORT: String(metricsPort),
      LEADFLOW_GRPC_TLS_CERT: certs.distribution.cert,
      LEADFLOW_GRPC_TLS_KEY: certs.distribution.key,
      LEADFLOW_GRPC_TLS_CLIENT_CA: certs.distribution.ca,
    });
    await waitForProcess(
      'distribution service',
      distribution,
      async () => (await fetch(`http://127.0.0.1:${metricsPort}/health/ready`)).ok,
    );
    gateway = startProcess('gateway/src/main.ts', {
      ...common,
      LEADFLOW_HTTP_HOST: '127.0.0.1',
      LEADFLOW_HTTP_PORT: String(httpPort),
      LEADFLOW_DISTRIBUTION_ADDRESS: `dns:///localhost:${grpcPort}`,
      LEADFLOW_DISTRIBUTION_TLS_CA: certs.gateway.ca,
      LEADFLOW_DISTRIBUTION_TLS_CERT: certs.gateway.cert,
      LEADFLOW_DISTRIBUTION_TLS_KEY: certs.gateway.key,
    });
    baseUrl = `http://127.0.0.1:${httpPort}`;
    await waitForProcess('gateway', gateway, async () => (await fetch(`${baseUrl}/health/ready`)).ok);
    adminEnv = {
      LEADFLOW_ADMIN_ADDRESS: `localhost:${grpcPort}`,
      LEADFLOW_ADMIN_TOKEN: secrets.LEADFLOW_ADMIN_TOKEN,
      LEADFLOW_ADMIN_TLS_CA: certs.admin.ca,
      LEADFLOW_ADMIN_TLS_CERT: certs.admin.cert,
      LEADFLOW_ADMIN_TLS_KEY: certs.admin.key,
    };
  });

  after(async () => {
    for (const running of [gateway, distribution]) if (running?.child.exitCode === null) running.child.kill('SIGKILL');
    await buyers?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await certs?.remove();
  });

  it('sells a lead posted to the gateway, set up with the CLI, all over mutual TLS; both stop cleanly', async () => {
    const created = await runLeadflow(['publisher', 'create', '--name', 'Acme', '--json'], adminEnv);
    expect(created.stderr).to.equal('');
    const { key } = JSON.parse(created.stdout) as { key: string };
    const applied = await runLeadflow(
      ['buyer', 'apply', '-f', '-', '--json'],
      adminEnv,
      JSON.stringify({ buyers: [testBuyer('lender', buyers.url('/lender'))] }),
    );
    expect(applied.code, applied.stderr).to.equal(0);

    const response = await fetch(`${baseUrl}/api/intake/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validLeadBody()),
    });
    expect(response.status).to.equal(200);
    expect(((await response.json()) as { status: string }).status).to.equal('sold');

    const log = distribution.output.join('');
    expect(log)
      .to.match(/"tls":"mutual"/)
      .and.match(/gRPC over TLS/);
    expect(log).to.not.include(secrets.LEADFLOW_ADMIN_TOKEN);

    // Renewed files, and SIGHUP: served at once, no restart; the gateway's open connection goes on.
    const served = await servedCertificateSerial(grpcPort, certs.admin);
    await certs.renew();
    distribution.child.kill('SIGHUP');
    await waitForProcess('the reload', distribution, async () =>
      /"outcome":"changed"[^\n]*TLS certificates checked/.test(distribution.output.join('')),
    );
    expect(await servedCertificateSerial(grpcPort, certs.admin)).to.not.equal(served);
    const again = await fetch(`${baseUrl}/api/intake/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validLeadBody()),
    });
    expect(((await again.json()) as { status: string }).status).to.equal('sold');

    gateway.child.kill('SIGTERM');
    distribution.child.kill('SIGTERM');
    expect([await exited(gateway), await exited(distribution)]).to.deep.equal([0, 0]);
  });

  it('stops at start, in one line naming the setting, on a certificate file it cannot use', async () => {
    const noCa = startProcess('gateway/src/main.ts', {
      LEADFLOW_HTTP_PORT: '0',
      LEADFLOW_DISTRIBUTION_TLS_CA: path.join(certs.dir, 'missing.crt'),
    });
    expect(await exited(noCa)).to.equal(1);
    expect(noCa.output.join('').trim()).to.equal(
      `leadflow-gateway: LEADFLOW_DISTRIBUTION_TLS_CA: cannot read ${path.join(certs.dir, 'missing.crt')} (no such file)`,
    );

    const wrongKey = startProcess('services/distribution/src/main.ts', {
      LEADFLOW_GRPC_PORT: '0',
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_GRPC_TLS_CERT: certs.distribution.cert,
      LEADFLOW_GRPC_TLS_KEY: certs.gateway.key,
    });
    expect(await exited(wrongKey)).to.equal(1);
    const output = wrongKey.output.join('').trim();
    expect(output).to.match(
      /^leadflow-distribution: LEADFLOW_GRPC_TLS_KEY: the key in .* does not belong to the certificate in .*$/,
    );
    expect(output).to.not.include('PRIVATE KEY');
  });
});
