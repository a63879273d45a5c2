import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { certificateNames } from '@leadflow/distribution/src/grpc/caller-identity';
import { startDistribution } from '@leadflow/distribution/src/server';
import {
  ConfigError,
  type DistributionConfig,
  loadDistributionConfig,
  loadGatewayConfig,
} from '@leadflow/service-kit/config';
import { loadIdentity, ReloadableTlsFiles, reloadPeriodically } from '@leadflow/service-kit/grpc-tls';
import { createLogger } from '@leadflow/service-kit/logger';
import { isLoopbackHost, isLoopbackTarget } from '@leadflow/service-kit/loopback';
import { expect } from 'chai';
import { memoryLogger } from '../support/gateway.js';
import { freePort, tcpAccepts } from '../support/ports.js';
import { exited, startProcess } from '../support/source-process.js';
import { sqliteDatabase } from '../support/test-database.js';
import { makeCertificates, type TestCertificates } from '../support/tls-certificates.js';

function configError(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail('the settings were accepted');
}

describe('gRPC transport: plaintext only on loopback', () => {
  it('knows loopback hosts and targets from the rest', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).to.equal(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.7',
      '192.168.1.2',
      'distribution',
      'localhost.example.com',
      '128.0.0.1',
      '',
    ])
      expect(isLoopbackHost(host), host).to.equal(false);
    for (const target of [
      '127.0.0.1:50051',
      'localhost:50051',
      '[::1]:50051',
      'dns:///localhost:50051',
      'dns://8.8.8.8/127.0.0.1:1',
      'ipv4:127.0.0.1:1,127.0.0.2:2',
      'unix:/run/leadflow.sock',
    ]) {
      expect(isLoopbackTarget(target), target).to.equal(true);
    }
    for (const target of [
      'distribution:50051',
      'dns:///distribution:50051',
      '10.0.0.7:50051',
      'ipv4:127.0.0.1:1,10.0.0.1:1',
      '[2001:db8::1]:50051',
      'dns:///0.0.0.0:1',
    ]) {
      expect(isLoopbackTarget(target), target).to.equal(false);
    }
  });

  it('refuses a distribution service listening beyond loopback without TLS, naming what to set', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.7', 'distribution']) {
      const message = configError(() => loadDistributionConfig({ LEADFLOW_GRPC_HOST: host }));
      expect(message).to.include(`LEADFLOW_GRPC_HOST is ${host}`);
      expect(message).to.include('LEADFLOW_GRPC_TLS_CERT').and.include('LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT=1');
    }
    expect(loadDistributionConfig({}).grpcHost, 'the embedded default needs no setup').to.equal('127.0.0.1');
    expect(loadDistributionConfig({ LEADFLOW_GRPC_HOST: 'localhost' }).grpcTransport.tls).to.equal(undefined);
  });

  it('allows plaintext beyond loopback only with the explicit opt-out, spelled exactly', () => {
    const config = loadDistributionConfig({
      LEADFLOW_GRPC_HOST: '0.0.0.0',
      LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT: '1',
    });
    expect(config.grpcTransport).to.include({ allowInsecurePlaintext: true, tls: undefined });
    expect(
      configError(() =>
        loadDistributionConfig({ LEADFLOW_GRPC_HOST: '0.0.0.0', LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT: 'yes' }),
      ),
    ).to.match(/must be 1 or 0/);
    expect(
      configError(() =>
        loadDistributionConfig({ LEADFLOW_GRPC_HOST: '0.0.0.0', LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT: '0' }),
      ),
    ).to.match(/not a loopback address/);
  });

  it('checks that TLS settings go together', () => {
    const tlsHost = { LEADFLOW_GRPC_HOST: '0.0.0.0' };
    expect(configError(() => loadDistributionConfig({ ...tlsHost, LEADFLOW_GRPC_TLS_CERT: '/c' }))).to.match(
      /LEADFLOW_GRPC_TLS_CERT and LEADFLOW_GRPC_TLS_KEY go together/,
    );
    expect(configError(() => loadDistributionConfig({ LEADFLOW_GRPC_TLS_CLIENT_CA: '/ca' }))).to.match(
      /needs LEADFLOW_GRPC_TLS_CERT/,
    );
    expect(
      configError(() =>
        loadDistributionConfig({
          LEADFLOW_GRPC_TLS_CERT: '/c',
          LEADFLOW_GRPC_TLS_KEY: '/k',
          LEADFLOW_GRPC_GATEWAY_IDENTITIES: 'gw',
        }),
      ),
    ).to.match(/needs LEADFLOW_GRPC_TLS_CLIENT_CA/);
    expect(
      configError(() =>
        loadDistributionConfig({
          LEADFLOW_GRPC_TLS_CERT: '/c',
          LEADFLOW_GRPC_TLS_KEY: '/k',
          LEADFLOW_GRPC_TLS_CLIENT_CA: '/ca',
          LEADFLOW_GRPC_GATEWAY_IDENTITIES: 'a,,b',
        }),
      ),
    ).to.match(/comma-separated list/);
    const mutual = loadDistributionConfig({
      ...tlsHost,
      LEADFLOW_GRPC_TLS_CERT: 'c.pem',
      LEADFLOW_GRPC_TLS_KEY: 'k.pem',
      LEADFLOW_GRPC_TLS_CLIENT_CA: 'ca.pem',
      LEADFLOW_GRPC_GATEWAY_IDENTITIES: 'gw-a, gw-b',
    });
    expect(mutual.grpcTransport.tls?.identity.cert).to.deep.equal({
      path: path.resolve('c.pem'),
      source: 'LEADFLOW_GRPC_TLS_CERT',
    });
    expect(mutual.grpcTransport.gatewayIdentities).to.deep.equal(['gw-a', 'gw-b']);
    expect(loadDistributionConfig({}).grpcTransport.gatewayIdentities).to.deep.equal(['leadflow-gateway']);
  });

  it('refuses a gateway dialling beyond loopback without TLS, and a client certificate without a CA', () => {
    const remote = { LEADFLOW_DISTRIBUTION_ADDRESS: 'dns:///distribution:50051' };
    const message = configError(() => loadGatewayConfig(remote));
    expect(message)
      .to.include('LEADFLOW_DISTRIBUTION_ADDRESS is dns:///distribution:50051')
      .and.include('LEADFLOW_DISTRIBUTION_TLS_CA');
    expect(
      loadGatewayConfig({ ...remote, LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT: '1' }).distributionTransport?.tls,
    ).to.equal(undefined);
    expect(
      loadGatewayConfig({ ...remote, LEADFLOW_DISTRIBUTION_TLS_CA: '/ca' }).distributionTransport?.tls?.ca.source,
    ).to.equal('LEADFLOW_DISTRIBUTION_TLS_CA');
    expect(
      configError(() =>
        loadGatewayConfig({ LEADFLOW_DISTRIBUTION_TLS_CERT: '/c', LEADFLOW_DISTRIBUTION_TLS_KEY: '/k' }),
      ),
    ).to.match(/client certificate for TLS: set LEADFLOW_DISTRIBUTION_TLS_CA/);
    expect(
      configError(() =>
        loadGatewayConfig({ LEADFLOW_DISTRIBUTION_TLS_CA: '/ca', LEADFLOW_DISTRIBUTION_TLS_KEY: '/k' }),
      ),
    ).to.match(/go together/);
    expect(loadGatewayConfig({}).distributionTransport?.tls, 'npm start: plaintext on loopback').to.equal(undefined);
  });

  it('refuses to listen beyond loopback without TLS whatever built the config, before touching storage', async () => {
    const database = await sqliteDatabase();
    try {
      const config: DistributionConfig = {
        ...loadDistributionConfig({ ...database.env, LEADFLOW_GRPC_PORT: '0', LEADFLOW_METRICS_PORT: '0' }),
        grpcHost: '0.0.0.0',
      };
      const refused = await startDistribution(config, { logger: createLogger('test', 'silent') }).then(
        (service) => service.close().then(() => expect.fail('the service started')),
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(ConfigError);
      expect(readdirSync(database.env.LEADFLOW_DATA_DIR), 'no secret generated, no database opened').to.deep.equal([]);
    } finally {
      await database.drop();
    }
  });

  it('with the opt-out, listens beyond loopback in plaintext and warns in its log', async () => {
    const database = await sqliteDatabase();
    const { logger, lines } = memoryLogger();
    try {
      const config = loadDistributionConfig({
        ...database.env,
        LEADFLOW_GRPC_HOST: '0.0.0.0',
        LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT: '1',
        LEADFLOW_GRPC_PORT: '0',
        LEADFLOW_METRICS_PORT: '0',
      });
      const service = await startDistribution(config, { logger });
      await service.close();
      const warnings = lines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((line) => line.level === 40);
      expect(warnings.map((line) => line.msg)).to.deep.equal([
        'gRPC is PLAINTEXT beyond loopback (LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT=1): only a network that encrypts by itself may carry it',
      ]);
    } finally {
      await database.drop();
    }
  });

  it('as a process: exits 1 with the message, and never opens the port', async function () {
    this.timeout(30_000);
    const port = await freePort();
    const distribution = startProcess('services/distribution/src/main.ts', {
      LEADFLOW_GRPC_HOST: '0.0.0.0',
      LEADFLOW_GRPC_PORT: String(port),
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_DATA_DIR: '/nonexistent/leadflow',
    });
    expect(await exited(distribution)).to.equal(1);
    const stderr = distribution.stderr.join('');
    expect(stderr.trim()).to.match(
      /^leadflow-distribution: LEADFLOW_GRPC_HOST is 0\.0\.0\.0, which is not a loopback address, and no TLS is configured/,
    );
    expect(await tcpAccepts(port)).to.equal(false);
  });
});

describe('gRPC transport: certificate files', function () {
  this.timeout(30_000);
  let certs: TestCertificates;
  let other: TestCertificates;

  before(async () => {
    [certs, other] = await Promise.all([makeCertificates(['--days', '30']), makeCertificates()]);
  });
  after(async () => {
    await certs?.remove();
    await other?.remove();
  });

  const identity = (cert: string, key: string) => ({
    cert: { path: cert, source: 'LEADFLOW_GRPC_TLS_CERT' },
    key: { path: key, source: 'LEADFLOW_GRPC_TLS_KEY' },
  });
  const keyText = () => readFileSync(certs.distribution.key, 'utf8');

  function refusal(load: () => unknown): string {
    const message = configError(load);
    expect(message, 'never quotes a file').to.not.match(/BEGIN|END|MII/);
    for (const line of keyText()
      .split('\n')
      .filter((text) => text.length > 20))
      expect(message).to.not.include(line.slice(0, 20));
    return message;
  }

  it('loads a certificate and its key, valid now', () => {
    const loaded = loadIdentity(identity(certs.distribution.cert, certs.distribution.key));
    expect(loaded.certificate.subject).to.include('CN=leadflow-distribution');
  });

  it('names the setting and the path of a file that is missing or not PEM', () => {
    expect(refusal(() => loadIdentity(identity('/nonexistent/tls.crt', certs.distribution.key)))).to.equal(
      'LEADFLOW_GRPC_TLS_CERT: cannot read /nonexistent/tls.crt (no such file)',
    );
    expect(refusal(() => loadIdentity(identity(certs.distribution.key, certs.distribution.key)))).to.match(
      /^LEADFLOW_GRPC_TLS_CERT: .* holds no PEM certificate$/,
    );
    expect(refusal(() => loadIdentity(identity(certs.distribution.cert, certs.distribution.cert)))).to.match(
      /^LEADFLOW_GRPC_TLS_KEY: .* holds no unencrypted PEM private key$/,
    );
  });

  it('refuses a key that belongs to another certificate', () => {
    expect(refusal(() => loadIdentity(identity(certs.distribution.cert, other.distribution.key)))).to.match(
      /does not belong to the certificate/,
    );
  });

  it('checks the files periodically: a renewal is logged once, a failed check once per failure, the previous certificates stay', async () => {
    const renewable = await makeCertificates();
    const lines: { level: string; message: string }[] = [];
    const logger = {
      info: (_details: object, message: string) => void lines.push({ level: 'info', message }),
      error: (_details: object, message: string) => void lines.push({ level: 'error', message }),
    };
    const files = new ReloadableTlsFiles({
      identity: identity(renewable.distribution.cert, renewable.distribution.key),
      ca: undefined,
    });
    const first = files.certificate?.serialNumber;
    const stop = reloadPeriodically(files, logger, 10);
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    try {
      // Replaced within one tick, as a Kubernetes Secret volume swaps its files at once.
      const renewal = await makeCertificates();
      writeFileSync(renewable.distribution.cert, readFileSync(renewal.distribution.cert));
      writeFileSync(renewable.distribution.key, readFileSync(renewal.distribution.key));
      await renewal.remove();
      await until(() => lines.length >= 1);
      expect(files.certificate?.serialNumber).to.not.equal(first);
      const renewed = files.certificate?.serialNumber;
      writeFileSync(renewable.distribution.key, readFileSync(other.distribution.key));
      await until(() => lines.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 100)); // ten more checks, failing alike
      expect(lines).to.deep.equal([
        { level: 'info', message: 'TLS certificates reloaded' },
        { level: 'error', message: 'TLS certificates not reloaded: the previous ones stay in use' },
      ]);
      expect(files.certificate?.serialNumber).to.equal(renewed);
    } finally {
      stop();
      await renewable.remove();
    }
  });

  it('refuses a certificate past its end, saying when it expired', () => {
    const inTwoMonths = new Date(Date.now() + 60 * 86_400_000);
    expect(
      refusal(() => loadIdentity(identity(certs.distribution.cert, certs.distribution.key), inTwoMonths)),
    ).to.match(/expired on /);
  });
});

describe('gRPC transport: names in a client certificate', () => {
  it('reads the CN and the DNS and URI alternative names, quoted ones included, and nothing else', () => {
    expect(
      certificateNames({
        subject: { CN: 'leadflow-gateway' } as never,
        subjectaltname:
          'DNS:gw.internal, URI:spiffe://cluster.local/ns/leadflow/sa/gateway, IP Address:10.0.0.1, email:ops@example.com, DNS:"odd, name"',
      }),
    ).to.deep.equal(['leadflow-gateway', 'gw.internal', 'spiffe://cluster.local/ns/leadflow/sa/gateway', 'odd, name']);
    expect(certificateNames({ subject: {} as never, subjectaltname: undefined as never })).to.deep.equal([]);
    // A quoted value cannot smuggle a second entry in.
    expect(certificateNames({ subject: {} as never, subjectaltname: 'DNS:"x, DNS:leadflow-gateway"' })).to.deep.equal([
      'x, DNS:leadflow-gateway',
    ]);
    expect(certificateNames({ subject: {} as never, subjectaltname: 'DNS:"bad \\x escape", DNS:ok' })).to.deep.equal([
      'ok',
    ]);
  });
});
