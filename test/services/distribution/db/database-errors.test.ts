import { randomBytes } from 'node:crypto';
import { startDistribution } from '@leadflow/distribution/src/server';
import { ConfigError, loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { createConnection } from 'mysql2/promise';
import { describeEachDatabase, MYSQL_SERVER_URL, productionSecretsEnv } from '../../../support/test-database.js';

const silent = createLogger('test', 'silent');

/** Starts a distribution service on `databaseUrl`: the start's error, or undefined once it has started (and closed). */
async function startError(databaseUrl: string): Promise<Error | undefined> {
  const config = loadDistributionConfig({
    ...productionSecretsEnv(),
    DATABASE_URL: databaseUrl,
    LEADFLOW_GRPC_PORT: '0',
    LEADFLOW_METRICS_PORT: '0',
  });
  try {
    await (await startDistribution(config, { logger: silent })).close();
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

/** Runs `sql` (several statements) on the server as the user of `url`. */
async function runAs(url: string, sql: string): Promise<void> {
  const connection = await createConnection({ uri: url, multipleStatements: true });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/** The statements inside the `mysql ... -e "..."` an advice gives, as the server reads them, and who runs them. */
function adviceCommand(message: string): { user: string; sql: string } {
  const command = /mysql -h \S+ -P \d+ -u (\S+) -p -e "((?:[^"\\]|\\.)*)"/.exec(message);
  if (!command) throw new Error(`no command in: ${message}`);
  return { user: command[1]!, sql: command[2]!.replace(/\\(.)/g, '$1') };
}

const withDatabase = (url: string, database: string) => `${url.replace(/\/$/, '')}/${database}`;

describeEachDatabase('start-up errors: the fix offered for a MySQL database works as given', () => {
  const server = new URL(MYSQL_SERVER_URL);
  // A user exists per host: one that may connect from loopback only, as stock root is.
  const accountHost = server.hostname === '127.0.0.1' ? '127.0.0.1' : '%';
  const suffix = randomBytes(4).toString('hex');
  const appUser = `lf_hint_${suffix}`;
  const appPassword = `pw-${randomBytes(8).toString('hex')}`;
  const appUrl = new URL(MYSQL_SERVER_URL);
  appUrl.username = appUser;
  appUrl.password = appPassword;
  const databases: string[] = [];
  const newDatabaseName = () => {
    const name = `leadflow_hint_${randomBytes(4).toString('hex')}`;
    databases.push(name);
    return name;
  };

  before(async () => {
    await runAs(MYSQL_SERVER_URL, `CREATE USER '${appUser}'@'${accountHost}' IDENTIFIED BY '${appPassword}'`);
  });
  after(async () => {
    const drops = databases.map((name) => `DROP DATABASE IF EXISTS \`${name}\`;`).join(' ');
    await runAs(MYSQL_SERVER_URL, `${drops} DROP USER IF EXISTS '${appUser}'@'${accountHost}'`);
  });

  it('to a user that may create databases: the CREATE DATABASE it runs itself, and no grant', async () => {
    const database = newDatabaseName();
    const url = withDatabase(MYSQL_SERVER_URL, database);
    const failure = await startError(url);
    expect(failure).to.be.instanceOf(ConfigError);
    expect(failure!.message).to.include(`the database "${database}" does not exist`);
    const { user, sql } = adviceCommand(failure!.message);
    expect(user).to.equal(decodeURIComponent(server.username));
    expect(sql).to.not.include('GRANT');
    await runAs(MYSQL_SERVER_URL, sql);
    expect(await startError(url)).to.equal(undefined);
  });

  it("to a user that may not: an administrator's CREATE and GRANT to the account the server sees", async () => {
    const database = newDatabaseName();
    const url = withDatabase(appUrl.toString(), database);
    const failure = await startError(url);
    expect(failure).to.be.instanceOf(ConfigError);
    // A user with no access is not told whether the database exists.
    expect(failure!.message).to.include(`may not use the database "${database}"`);
    const { user, sql } = adviceCommand(failure!.message);
    expect(user).to.equal('root');
    expect(sql).to.include(`TO '${appUser}'@'${accountHost}'`);
    await runAs(MYSQL_SERVER_URL, sql);
    expect(await startError(url)).to.equal(undefined);
  });

  it('to a user short of privileges on an existing database: the GRANT to the account the server sees', async () => {
    const database = newDatabaseName();
    await runAs(
      MYSQL_SERVER_URL,
      `CREATE DATABASE \`${database}\`; GRANT SELECT ON \`${database}\`.* TO '${appUser}'@'${accountHost}'`,
    );
    const url = withDatabase(appUrl.toString(), database);
    const failure = await startError(url);
    expect(failure).to.be.instanceOf(ConfigError);
    expect(failure!.message).to.include(`user "${appUser}" may not use the database "${database}"`);
    const { user, sql } = adviceCommand(failure!.message);
    expect(user).to.equal('root');
    expect(sql).to.match(new RegExp(`^GRANT [A-Z, ]+ ON \`${database}\`\\.\\* TO '${appUser}'@'${accountHost}'$`));
    await runAs(MYSQL_SERVER_URL, sql);
    expect(await startError(url)).to.equal(undefined);
  });
}, ['mysql']);
