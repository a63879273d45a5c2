import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ChannelCredentials, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { ServingHealth } from '@leadflow/distribution/src/observability/health';
import { type RunningDistribution, startDistribution } from '@leadflow/distribution/src/server';
import { buildGateway } from '@leadflow/gateway/src/app';
import { AdminServiceClient } from '@leadflow/proto/leadflow/admin/v1/admin';
import { DistributionServiceClient, Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { ConfigError, loadDistributionConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import { grpcChannelCredentials } from '@leadflow/service-kit/grpc-tls';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { bearer, call } from '../support/grpc.js';
import { validLeadBody } from '../support/leads.js';
import { runLeadflow } from '../support/run-leadflow.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';
import {
  type CertificateFiles,
  makeCertificates,
  servedCertificateSerial,
  type TestCertificates,
} from '../support/tls-certificates.js';

/** Long enough for a handshake on a busy machine; a refused one fails well before it. */
const DEADLINE_MS = 10_000;

function tlsCredentials(ca: string, client?: CertificateFiles): ChannelCredentials {
  return credentials.createSsl(
    readFileSync(ca),
    client ? readFileSync(client.key) : null,
    client ? readFileSync(client.cert) : null,
  );
}

function failure(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: ServiceError) => error,
  );
}

describe('gRPC over mutual TLS: only a gateway may submit leads, the admin token travels encrypted', function () {
  this.timeout(60_000);
  let certs: TestCertificates;
  let foreign: TestCertificates;
  let database: TestDatabase;
  let service: RunningDistribution;
  let address: string;
  let buyers: TestBuyerServer;
  let publisherKey: string;
  const clients: { close(): void }[] = [];

  function distributionClient(channelCredentials: ChannelCredentials): DistributionServiceClient {
    const client = new DistributionServiceClient(address, channelCredentials);
    clients.push(client);
    return client;
  }

  function adminClient(channelCredentials: ChannelCredentials): AdminServiceClient {
    const client = new AdminServiceClient(address, channelCredentials);
    clients.push(client);
    return client;
  }

  function submit(client: DistributionServiceClient, clickid = `click-${Math.random()}`) {
    const lead = Lead.fromPartial(validLeadBody({ clickid }) as Partial<Lead>);
    return call(client.submitLead.bind(client), { webmasterKey: publisherKey, lead, nonStringFields: [] }, undefined, {
      deadline: Date.now() + DEADLINE_MS,
    });
  }

  function resolveKey(client: DistributionServiceClient) {
    return call(client.resolvePublisherKey.bind(client), { webmasterKey: publisherKey }, undefined, {
      deadline: Date.now() + DEADLINE_MS,
    });
  }

  async function storedLeads(): Promise<number> {
    const row = await service.db
      .selectFrom('leads')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  before(async () => {
    [certs, foreign] = await Promise.all([makeCertificates(), makeCertificates()]);
    database = await sqliteDatabase();
    const config = loadDistributionConfig({
      ...database.env,
      LEADFLOW_GRPC_PORT: '0',
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_GRPC_TLS_CERT: certs.distribution.cert,
      LEADFLOW_GRPC_TLS_KEY: certs.distribution.key,
      LEADFLOW_GRPC_TLS_CLIENT_CA: certs.distribution.ca,
    });
    service = await startDistribution(config, { logger: createLogger('test', 'silent') });
    // By name, as in production: Node warns when TLS names a server by an IP address.
    address = `localhost:${service.port}`;

    buyers = await startBuyerServer();
    buyers.behave('/lender', { kind: 'accept', redirectUrl: 'https://lender.example/continue' });
    const admin = adminClient(tlsCredentials(certs.admin.ca, certs.admin));
    const deadline = { deadline: Date.now() + DEADLINE_MS };
    const created = await call(
      admin.createPublisher.bind(admin),
      { name: 'TLS publisher', rateLimitPerMinute: 0, payoutShareBps: 0 },
      bearer(service.adminToken),
      deadline,
    );
    publisherKey = created.key;
    const applied = await call(
      admin.applyBuyers.bind(admin),
      { documentJson: JSON.stringify({ buyers: [testBuyer('lender', buyers.url('/lender'))] }), dryRun: false },
      bearer(service.adminToken),
      deadline,
    );
    expect(applied.errors).to.deep.equal([]);
  });

  after(async () => {
    for (const client of clients) client.close();
    await service?.close();
    await buyers?.close();
    await database?.drop();
    await certs?.remove();
    await foreign?.remove();
  });

  it('fails a plaintext client cleanly: UNAVAILABLE at once, not a hang until the deadline', async () => {
    const error = await failure(submit(distributionClient(credentials.createInsecure())));
    expect(error.code).to.equal(status.UNAVAILABLE);
    expect(await storedLeads()).to.equal(0);
  });

  it('refuses a TLS client that presents no client certificate, at the handshake', async () => {
    const client = distributionClient(tlsCredentials(certs.gateway.ca));
    expect((await failure(submit(client))).code).to.equal(status.UNAVAILABLE);
    expect((await failure(resolveKey(client))).code).to.equal(status.UNAVAILABLE);
    expect(await storedLeads()).to.equal(0);
  });

  it('refuses a client certificate issued by another CA, even one named leadflow-gateway', async () => {
    const client = distributionClient(tlsCredentials(certs.gateway.ca, foreign.gateway));
    expect((await failure(submit(client))).code).to.equal(status.UNAVAILABLE);
    expect(await storedLeads()).to.equal(0);
  });

  it("refuses the CA's server certificate used as a client certificate (it is not for client authentication)", async () => {
    const client = distributionClient(tlsCredentials(certs.gateway.ca, certs.distribution));
    expect((await failure(submit(client))).code).to.equal(status.UNAVAILABLE);
    expect(await storedLeads()).to.equal(0);
  });

  it('refuses to send to a server whose certificate another CA issued', async () => {
    const client = distributionClient(tlsCredentials(foreign.gateway.ca, certs.gateway));
    expect((await failure(resolveKey(client))).code).to.equal(status.UNAVAILABLE);
  });

  it('lets a certificate of the CA that names no gateway reach the admin API with the token, and nothing of the gateway', async () => {
    const channel = tlsCredentials(certs.admin.ca, certs.admin);
    const client = distributionClient(channel);
    const submitted = await failure(submit(client));
    expect(submitted.code).to.equal(status.PERMISSION_DENIED);
    expect(submitted.details).to.match(/only a gateway/);
    expect((await failure(resolveKey(client))).code).to.equal(status.PERMISSION_DENIED);
    expect(await storedLeads()).to.equal(0);

    const admin = adminClient(channel);
    const listed = await call(
      admin.listPublishers.bind(admin),
      { pageSize: 0, pageToken: '' },
      bearer(service.adminToken),
      { deadline: Date.now() + DEADLINE_MS },
    );
    expect(listed.publishers.map((publisher) => publisher.name)).to.include('TLS publisher');
    const withoutToken = await failure(
      call(admin.listPublishers.bind(admin), { pageSize: 0, pageToken: '' }, undefined, {
        deadline: Date.now() + DEADLINE_MS,
      }),
    );
    expect(withoutToken.code).to.equal(status.UNAUTHENTICATED);
  });

  it('serves the gateway certificate: a key resolves and a lead is sold over gRPC', async () => {
    const client = distributionClient(tlsCredentials(certs.gateway.ca, certs.gateway));
    expect((await resolveKey(client)).valid).to.equal(true);
    const response = await submit(client);
    expect(response.outcome?.$case).to.equal('sold');
  });

  it('answers HTTP probes and tells the certificate expiry on the metrics port (the kubelet cannot speak gRPC over TLS)', async () => {
    const base = `http://127.0.0.1:${service.metricsPort}`;
    expect((await fetch(`${base}/health/live`)).status).to.equal(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ok' });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const expiry = /^leadflow_grpc_tls_certificate_expiry_timestamp_seconds (\d+)$/m.exec(metrics)?.[1];
    const served = new X509Certificate(readFileSync(certs.distribution.cert));
    expect(Number(expiry), 'the expiry of the certificate served, for alerts').to.equal(
      Date.parse(served.validTo) / 1000,
    );
    const health = new ServingHealth([]);
    expect(health.isServing(), 'before serve()').to.equal(false);
    health.serve();
    expect(health.isServing()).to.equal(true);
    health.drain();
    expect(health.isServing(), 'once draining').to.equal(false);
  });

  describe('the gateway over mutual TLS', () => {
    let gateway: FastifyInstance;
    let baseUrl: string;

    async function startGateway(env: Record<string, string>): Promise<{ gateway: FastifyInstance; baseUrl: string }> {
      const config = loadGatewayConfig({
        LEADFLOW_HTTP_PORT: '0',
        LEADFLOW_HTTP_HOST: '127.0.0.1',
        LEADFLOW_DISTRIBUTION_ADDRESS: address,
        ...env,
      });
      const app = buildGateway({ config, logger: pino({ level: 'silent' }) });
      return { gateway: app, baseUrl: await app.listen({ host: config.httpHost, port: config.httpPort }) };
    }

    function post(base: string, body: unknown) {
      return fetch(`${base}/api/intake/${publisherKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    }

    before(async () => {
      ({ gateway, baseUrl } = await startGateway({
        LEADFLOW_DISTRIBUTION_TLS_CA: certs.gateway.ca,
        LEADFLOW_DISTRIBUTION_TLS_CERT: certs.gateway.cert,
        LEADFLOW_DISTRIBUTION_TLS_KEY: certs.gateway.key,
      }));
    });
    after(async () => {
      await gateway?.close();
    });

    it('sells a lead end to end: HTTP intake, gRPC over mutual TLS, buyer, sold', async () => {
      const before = buyers.received('/lender').length;
      const response = await post(baseUrl, validLeadBody());
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status).to.equal(200);
      expect(body.status).to.equal('sold');
      expect(body.redirectUrl).to.equal('https://lender.example/continue');
      expect(buyers.received('/lender').length).to.equal(before + 1);
      expect((await fetch(`${baseUrl}/health/ready`)).status).to.equal(200);
    });

    it('answers 503, not 500, when its certificate is missing: not ready, and no lead stored', async () => {
      const leadsBefore = await storedLeads();
      const noCertificate = await startGateway({ LEADFLOW_DISTRIBUTION_TLS_CA: certs.gateway.ca });
      try {
        const response = await post(noCertificate.baseUrl, validLeadBody());
        expect(response.status).to.equal(503);
        expect(((await response.json()) as Record<string, unknown>).status).to.equal('error');
        expect((await fetch(`${noCertificate.baseUrl}/health/ready`)).status).to.equal(503);
      } finally {
        await noCertificate.gateway.close();
      }
      expect(await storedLeads()).to.equal(leadsBefore);
    });
  });

  describe('the leadflow CLI over TLS', () => {
    const cliEnv = (extra: Record<string, string> = {}) => ({
      LEADFLOW_ADMIN_ADDRESS: address,
      LEADFLOW_ADMIN_TOKEN: service.adminToken,
      ...extra,
    });

    it('works with the CA, certificate and key from the environment', async () => {
      const run = await runLeadflow(
        ['publisher', 'list', '--json'],
        cliEnv({
          LEADFLOW_ADMIN_TLS_CA: certs.admin.ca,
          LEADFLOW_ADMIN_TLS_CERT: certs.admin.cert,
          LEADFLOW_ADMIN_TLS_KEY: certs.admin.key,
        }),
      );
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
      expect(JSON.parse(run.stdout).publishers.map((publisher: { name: string }) => publisher.name)).to.include(
        'TLS publisher',
      );
    });

    it('reaches the local service by its port alone', async () => {
      const run = await runLeadflow(['publisher', 'list', '--json'], {
        LEADFLOW_GRPC_PORT: String(service.port),
        LEADFLOW_ADMIN_TOKEN: service.adminToken,
        LEADFLOW_ADMIN_TLS_CA: certs.admin.ca,
        LEADFLOW_ADMIN_TLS_CERT: certs.admin.cert,
        LEADFLOW_ADMIN_TLS_KEY: certs.admin.key,
      });
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
    });

    it('works with --tls-ca, --tls-cert and --tls-key', async () => {
      const run = await runLeadflow(
        [
          'publisher',
          'create',
          '--name',
          'Made over TLS',
          '--json',
          '--tls-ca',
          certs.admin.ca,
          '--tls-cert',
          certs.admin.cert,
          '--tls-key',
          certs.admin.key,
        ],
        cliEnv(),
      );
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
      expect(JSON.parse(run.stdout).key).to.match(/^lfpk_/);
    });

    it('fails in one line that says what to fix: plaintext, no client certificate, a CA that did not issue the server certificate', async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [cliEnv(), /in plaintext .*if it serves TLS, set --tls-ca/],
        [
          cliEnv({ LEADFLOW_ADMIN_TLS_CA: certs.admin.ca }),
          /no TLS connection .*asks for a client certificate: set --tls-cert and --tls-key/,
        ],
        [
          cliEnv({
            LEADFLOW_ADMIN_TLS_CA: foreign.admin.ca,
            LEADFLOW_ADMIN_TLS_CERT: certs.admin.cert,
            LEADFLOW_ADMIN_TLS_KEY: certs.admin.key,
          }),
          /no TLS connection .*certificate was not accepted .*check --tls-ca/,
        ],
      ];
      for (const [env, message] of cases) {
        const run = await runLeadflow(['publisher', 'list'], env);
        expect(run.code).to.equal(1);
        expect(run.stderr.trim().split('\n')).to.have.length(1);
        expect(run.stderr).to.match(message);
        expect(run.stderr).to.not.include(service.adminToken);
      }
    });

    it('refuses a certificate without its key before connecting', async () => {
      const run = await runLeadflow(
        ['publisher', 'list', '--tls-ca', certs.admin.ca, '--tls-cert', certs.admin.cert],
        cliEnv(),
      );
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(/--tls-cert .*--tls-key .*go together/);
    });
  });
});

describe('gRPC TLS: renewed certificate files are used without a restart', function () {
  this.timeout(60_000);
  let certs: TestCertificates;
  let otherCa: TestCertificates;
  let database: TestDatabase;
  let service: RunningDistribution;
  let address: string;
  const clients: { close(): void }[] = [];

  /** A client with connections of its own: grpc-js would otherwise share one made before the files changed. */
  function gatewayClient(channelCredentials: ChannelCredentials): DistributionServiceClient {
    const client = new DistributionServiceClient(address, channelCredentials, { 'grpc.use_local_subchannel_pool': 1 });
    clients.push(client);
    return client;
  }

  const resolveKey = (client: DistributionServiceClient) =>
    call(client.resolvePublisherKey.bind(client), { webmasterKey: 'lfpk_unknown' }, undefined, {
      deadline: Date.now() + DEADLINE_MS,
    });

  before(async () => {
    [certs, otherCa] = await Promise.all([makeCertificates(), makeCertificates()]);
    database = await sqliteDatabase();
    service = await startDistribution(
      loadDistributionConfig({
        ...database.env,
        LEADFLOW_GRPC_PORT: '0',
        LEADFLOW_METRICS_PORT: '0',
        LEADFLOW_GRPC_TLS_CERT: certs.distribution.cert,
        LEADFLOW_GRPC_TLS_KEY: certs.distribution.key,
        LEADFLOW_GRPC_TLS_CLIENT_CA: certs.distribution.ca,
      }),
      { logger: createLogger('test', 'silent') },
    );
    address = `localhost:${service.port}`;
  });

  after(async () => {
    for (const client of clients) client.close();
    await service?.close();
    await database?.drop();
    await certs?.remove();
    await otherCa?.remove();
  });

  it('serves renewed files to new connections once reloaded; connections already open keep working', async () => {
    const open = gatewayClient(tlsCredentials(certs.gateway.ca, certs.gateway));
    expect((await resolveKey(open)).valid).to.equal(false);
    const before = await servedCertificateSerial(service.port, certs.admin);
    expect(service.reloadCertificates(), 'nothing changed yet').to.equal('unchanged');

    await certs.renew();
    expect(await servedCertificateSerial(service.port, certs.admin), 'not before the reload').to.equal(before);
    expect(service.reloadCertificates()).to.equal('changed');
    expect(await servedCertificateSerial(service.port, certs.admin)).to.not.equal(before);
    expect((await resolveKey(open)).valid, 'the open connection').to.equal(false);
    expect(
      (await resolveKey(gatewayClient(tlsCredentials(certs.gateway.ca, certs.gateway)))).valid,
      'a renewed gateway',
    ).to.equal(false);
  });

  it('keeps the certificates in use when the renewed files fail a check', async () => {
    const inUse = await servedCertificateSerial(service.port, certs.admin);
    const key = readFileSync(certs.distribution.key);
    writeFileSync(certs.distribution.key, readFileSync(otherCa.distribution.key));
    try {
      expect(() => service.reloadCertificates()).to.throw(ConfigError, /does not belong to the certificate/);
      expect(await servedCertificateSerial(service.port, certs.admin)).to.equal(inUse);
      expect((await resolveKey(gatewayClient(tlsCredentials(certs.gateway.ca, certs.gateway)))).valid).to.equal(false);
    } finally {
      writeFileSync(certs.distribution.key, key);
    }
  });

  it('trusts a new client CA from a bundle, so the CA can be replaced without an outage', async () => {
    const stranger = tlsCredentials(certs.gateway.ca, otherCa.gateway);
    expect((await failure(resolveKey(gatewayClient(stranger)))).code).to.equal(status.UNAVAILABLE);
    const bundle = Buffer.concat([readFileSync(certs.distribution.ca), readFileSync(otherCa.distribution.ca)]);
    writeFileSync(certs.distribution.ca, bundle);
    expect(service.reloadCertificates()).to.equal('changed');
    expect((await resolveKey(gatewayClient(stranger))).valid, 'a certificate of the new CA').to.equal(false);
    expect(
      (await resolveKey(gatewayClient(tlsCredentials(certs.gateway.ca, certs.gateway)))).valid,
      'and of the old CA still',
    ).to.equal(false);
  });

  it('lets a client pick up its own renewed certificate for its next connections', async () => {
    // The gateway's own files: its certificate from a CA the service does not trust yet.
    const own = path.join(certs.dir, 'own');
    mkdirSync(own);
    for (const name of ['tls.crt', 'tls.key', 'ca.crt'])
      writeFileSync(path.join(own, name), readFileSync(path.join(certs.dir, 'gateway', name)));
    const settings = {
      ca: { path: path.join(own, 'ca.crt'), source: 'CA' },
      identity: {
        cert: { path: path.join(own, 'tls.crt'), source: 'CERT' },
        key: { path: path.join(own, 'tls.key'), source: 'KEY' },
      },
    };
    // One credentials object, as the gateway keeps for its client's lifetime: each connection reads it.
    const channel = grpcChannelCredentials(settings);
    expect((await resolveKey(gatewayClient(channel.credentials))).valid).to.equal(false);

    writeFileSync(certs.distribution.ca, readFileSync(otherCa.distribution.ca));
    expect(service.reloadCertificates()).to.equal('changed');
    expect(
      (await failure(resolveKey(gatewayClient(channel.credentials)))).code,
      'the service no longer trusts its CA',
    ).to.equal(status.UNAVAILABLE);

    writeFileSync(path.join(own, 'tls.crt'), readFileSync(otherCa.gateway.cert));
    writeFileSync(path.join(own, 'tls.key'), readFileSync(otherCa.gateway.key));
    expect(channel.files?.reload()).to.equal('changed');
    expect((await resolveKey(gatewayClient(channel.credentials))).valid, 'renewed').to.equal(false);
  });
});
