import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { startDistribution } from '@leadflow/distribution/src/server';
import { ConfigError, loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { freePort } from '../../support/ports.js';
import { runLeadflow } from '../../support/run-leadflow.js';
import { exited, startProcess } from '../../support/source-process.js';
import {
  describeEachDatabase,
  MYSQL_SERVER_URL,
  productionSecretsEnv,
  sqliteDatabase,
  type TestDatabase,
} from '../../support/test-database.js';

const silent = createLogger('test', 'silent');

async function occupied(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

async function startFailure(env: Record<string, string>): Promise<Error> {
  return startDistribution(loadDistributionConfig(env), { logger: silent }).then(
    async (service) => {
      await service.close();
      throw new Error('the service started');
    },
    (error: Error) => error,
  );
}

describeEachDatabase('start-up errors: a MySQL database that is not there', () => {
  it("never quotes DATABASE_URL's password in a start-up error", async () => {
    const name = `leadflow_missing_${randomBytes(4).toString('hex')}`;
    const url = new URL(MYSQL_SERVER_URL);
    url.password = 'pw-CANARY-9931';
    const failure = await startFailure({
      ...productionSecretsEnv(),
      DATABASE_URL: `${url.toString().replace(/\/$/, '')}/${name}`,
      LEADFLOW_GRPC_PORT: '0',
      LEADFLOW_METRICS_PORT: '0',
    }).catch((error: Error) => error);
    // A wrong password is refused before the database is looked up: that message must name the user instead.
    expect(failure).to.be.instanceOf(ConfigError);
    expect(failure.message).to.not.include('pw-CANARY-9931');
    expect(failure.message).to.match(/refused user|does not exist/);
  });

  it('tells a missing database by name, with the statement that creates it', async () => {
    const name = `leadflow_missing_${randomBytes(4).toString('hex')}`;
    const failure = await startFailure({
      ...productionSecretsEnv(),
      DATABASE_URL: `${MYSQL_SERVER_URL}/${name}`,
      LEADFLOW_GRPC_PORT: '0',
      LEADFLOW_METRICS_PORT: '0',
    });
    expect(failure).to.be.instanceOf(ConfigError);
    const { hostname, port } = new URL(MYSQL_SERVER_URL);
    expect(failure.message).to.include(
      `the database "${name}" does not exist on the MySQL server at ${hostname}:${port || 3306}`,
    );
    expect(failure.message).to.include('ER_BAD_DB_ERROR');
    expect(failure.message).to.include(`CREATE DATABASE \\\`${name}\\\` CHARACTER SET utf8mb4`);
  });
}, ['mysql']);

describe('start-up errors: ports, secrets', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let busy: { server: Server; port: number };

  before(async () => {
    database = await sqliteDatabase();
    busy = await occupied();
  });
  after(async () => {
    busy?.server.close();
    await database?.drop();
  });

  it('names LEADFLOW_GRPC_PORT when the gRPC port is taken', async () => {
    const failure = await startFailure({
      ...database.env,
      LEADFLOW_GRPC_PORT: String(busy.port),
      LEADFLOW_METRICS_PORT: '0',
    });
    expect(failure).to.be.instanceOf(ConfigError);
    expect(failure.message).to.equal(
      `127.0.0.1:${busy.port} is already in use by another process: stop that process, or set LEADFLOW_GRPC_PORT to a free port`,
    );
  });

  it('names LEADFLOW_METRICS_PORT when a second service on the host collides on the metrics port', async () => {
    const failure = await startFailure({
      ...database.env,
      LEADFLOW_GRPC_PORT: '0',
      LEADFLOW_METRICS_PORT: String(busy.port),
    });
    expect(failure).to.be.instanceOf(ConfigError);
    expect(failure.message).to.include('each distribution service on a host needs its own LEADFLOW_METRICS_PORT');
    expect(failure.message).to.include('set LEADFLOW_METRICS_PORT to a free port');
  });

  it('names LEADFLOW_HTTP_PORT in one line, no stack trace, when the gateway cannot listen', async () => {
    const gateway = startProcess('gateway/src/main.ts', {
      LEADFLOW_HTTP_PORT: String(busy.port),
      LEADFLOW_HTTP_HOST: '127.0.0.1',
      LEADFLOW_GRPC_PORT: String(await freePort()),
      REDIS_URL: '',
      LEADFLOW_LOG_FORMAT: 'json',
    });
    expect(await exited(gateway)).to.equal(1);
    const output = gateway.output.join('');
    expect(output).to.include(
      `leadflow-gateway: 127.0.0.1:${busy.port} is already in use by another process: stop that process, or set LEADFLOW_HTTP_PORT to a free port\n`,
    );
    expect(output).to.not.match(/\n\s+at /);
  });

  it('says how to generate the secrets DATABASE_URL needs, and the command prints them', async () => {
    expect(() => loadDistributionConfig({ DATABASE_URL: 'mysql://leadflow@db:3306/leadflow' })).to.throw(
      ConfigError,
      /LEADFLOW_ADMIN_TOKEN, LEADFLOW_PII_KEYS, LEADFLOW_HMAC_KEY must be set .*Generate them once with `leadflow secrets generate`/,
    );
    const run = await runLeadflow(['secrets', 'generate']);
    expect(run.code).to.equal(0);
    const env = Object.fromEntries(
      run.stdout
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(Object.keys(env)).to.deep.equal(['LEADFLOW_ADMIN_TOKEN', 'LEADFLOW_PII_KEYS', 'LEADFLOW_HMAC_KEY']);
    // What it prints is what the service accepts.
    const config = loadDistributionConfig({ ...env, DATABASE_URL: 'mysql://leadflow@db:3306/leadflow' });
    expect(config.secrets.adminToken).to.equal(env.LEADFLOW_ADMIN_TOKEN);
    const again = await runLeadflow(['secrets', 'generate', '--json']);
    expect(JSON.parse(again.stdout).LEADFLOW_HMAC_KEY).to.not.equal(env.LEADFLOW_HMAC_KEY);
  });
});
