import { status } from '@grpc/grpc-js';
import { loadDescribedFiles } from '@leadflow/distribution/src/observability/descriptor-sets';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import {
  check,
  type HealthClient,
  healthClient,
  type ReflectionClient,
  reflect,
  reflectionClient,
} from '../../../support/grpc-clients.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

const DISTRIBUTION_SERVICE = 'leadflow.distribution.v1.DistributionService';
const ADMIN_SERVICE = 'leadflow.admin.v1.AdminService';

describe('observability: gRPC health checking and server reflection on the distribution service', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let distribution: TestDistribution;
  let health: HealthClient;
  let reflection: ReflectionClient;

  before(async () => {
    database = await sqliteDatabase();
    distribution = await startTestDistribution(database);
    health = healthClient(distribution.address);
    reflection = reflectionClient(distribution.address);
  });
  after(async () => {
    health?.close();
    reflection?.close();
    await distribution?.close();
    await database?.drop();
  });

  it('answers Check SERVING for the server as a whole and for each leadflow service', async () => {
    for (const service of ['', DISTRIBUTION_SERVICE, ADMIN_SERVICE]) {
      expect(await check(health, service), service || '(server)').to.equal('SERVING');
    }
  });

  it('answers Check for an unknown service with NOT_FOUND', async () => {
    const failure = await check(health, 'leadflow.nothing.v1.Nothing').then(
      () => undefined,
      (error: { code: number }) => error.code,
    );
    expect(failure).to.equal(status.NOT_FOUND);
  });

  it('tells a watcher NOT_SERVING when the service starts draining, and lets it shut down promptly', async function () {
    // Graceful shutdown is forced after 10 s: a Watch stream left open would hold it that long.
    this.timeout(8000);
    // A service of its own: one service per embedded data directory.
    const drainingDatabase = await sqliteDatabase();
    const draining = await startTestDistribution(drainingDatabase);
    const watcher = healthClient(draining.address);
    try {
      const statuses: string[] = [];
      const watch = watcher.Watch({ service: DISTRIBUTION_SERVICE });
      watch.on('data', (message: { status: string }) => statuses.push(message.status));
      const ended = new Promise<void>((resolve) => {
        watch.on('end', resolve);
        watch.on('error', () => resolve());
      });
      while (statuses.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(statuses).to.deep.equal(['SERVING']);

      await draining.close();
      await ended;
      expect(statuses).to.deep.equal(['SERVING', 'NOT_SERVING']);
    } finally {
      watcher.close();
      await drainingDatabase.drop();
    }
  });

  it('lists both leadflow services (and the health service) through reflection', async () => {
    const response = await reflect(reflection, { list_services: '' });
    const names = response.list_services_response.service.map((service: { name: string }) => service.name);
    expect(names).to.include.members([DISTRIBUTION_SERVICE, ADMIN_SERVICE, 'grpc.health.v1.Health']);
  });

  it('describes a leadflow service through reflection, so that grpcurl can call it', async () => {
    const response = await reflect(reflection, { file_containing_symbol: DISTRIBUTION_SERVICE });
    const files: Buffer[] = response.file_descriptor_response.file_descriptor_proto;
    expect(files).to.not.be.empty;
    expect(Buffer.concat(files).toString('latin1')).to.include('SubmitLead');
  });

  it('serves, in v1 and v1alpha, each file byte for byte as buf built it, then every file it imports', async () => {
    const committed = new Map(loadDescribedFiles().map(({ proto, bytes }) => [proto.name, { proto, bytes }]));
    for (const version of ['v1', 'v1alpha'] as const) {
      const client = reflectionClient(distribution.address, version);
      try {
        for (const [name, { proto, bytes }] of committed) {
          const response = await reflect(client, { file_by_filename: name });
          const served: Buffer[] = response.file_descriptor_response.file_descriptor_proto;
          expect(Buffer.compare(served[0]!, bytes), `${version} ${name}`).to.equal(0);
          const imported = served
            .slice(1)
            .map(
              (file) => [...committed.values()].find((entry) => Buffer.compare(entry.bytes, file) === 0)?.proto.name,
            );
          expect(imported, `${version} ${name}: its imports`).to.include.members(proto.dependency);
        }
      } finally {
        client.close();
      }
    }
  });

  it('finds the file of a method, a field or an enum value by its full name, and answers NOT_FOUND for an unknown one', async () => {
    for (const symbol of [
      `${DISTRIBUTION_SERVICE}.SubmitLead`,
      'grpc.health.v1.HealthCheckResponse.status',
      'grpc.health.v1.HealthCheckResponse.SERVING',
    ]) {
      const response = await reflect(reflection, { file_containing_symbol: symbol });
      expect(response.file_descriptor_response?.file_descriptor_proto, symbol).to.not.be.empty;
    }
    const missing = await reflect(reflection, { file_containing_symbol: 'leadflow.nothing.v1.Nothing' });
    expect(missing.error_response.error_code).to.equal(status.NOT_FOUND);
  });

  it('answers extension questions (none are declared) and a request that asks nothing', async () => {
    const extensions = await reflect(reflection, {
      all_extension_numbers_of_type: 'grpc.health.v1.HealthCheckRequest',
    });
    expect(extensions.all_extension_numbers_response).to.deep.include({
      base_type_name: 'grpc.health.v1.HealthCheckRequest',
      extension_number: [],
    });
    const unknownType = await reflect(reflection, { all_extension_numbers_of_type: 'leadflow.nothing.v1.Nothing' });
    expect(unknownType.error_response.error_code).to.equal(status.NOT_FOUND);
    const unknownExtension = await reflect(reflection, {
      file_containing_extension: { containing_type: 'grpc.health.v1.HealthCheckRequest', extension_number: 100 },
    });
    expect(unknownExtension.error_response.error_code).to.equal(status.NOT_FOUND);
    const noQuestion = await reflect(reflection, { host: 'x' });
    expect(noQuestion.error_response.error_code).to.equal(status.INVALID_ARGUMENT);
    expect(noQuestion.valid_host).to.equal('x');
  });
});
