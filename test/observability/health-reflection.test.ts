import { status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../support/distribution.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';
import {
  check,
  type HealthClient,
  healthClient,
  type ReflectionClient,
  reflect,
  reflectionClient,
} from './support/grpc-clients.js';

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
});
