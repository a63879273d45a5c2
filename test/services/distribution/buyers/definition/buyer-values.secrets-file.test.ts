import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import { ConfigError } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { startTestDistribution } from '../../../../support/distribution.js';
import { sqliteDatabase, type TestDatabase } from '../../../../support/test-database.js';

describe('LEADFLOW_BUYER_SECRETS_FILE at start', () => {
  let database: TestDatabase;
  let saved: string | undefined;
  before(async () => {
    database = await sqliteDatabase();
    saved = process.env.LEADFLOW_BUYER_SECRETS_FILE;
  });
  after(async () => {
    if (saved === undefined) delete process.env.LEADFLOW_BUYER_SECRETS_FILE;
    else process.env.LEADFLOW_BUYER_SECRETS_FILE = saved;
    serviceValues().reload();
    await database.drop();
  });

  it('stops the service when the file is named but cannot be used, naming the variable and never quoting the file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-secrets-'));
    const broken = path.join(dir, 'broken.yaml');
    await writeFile(broken, 'acme: {token: "tok-abc"');
    for (const [file, message] of [
      [path.join(dir, 'missing.yaml'), 'the secrets file named by LEADFLOW_BUYER_SECRETS_FILE cannot be read'],
      [broken, 'the secrets file named by LEADFLOW_BUYER_SECRETS_FILE is not valid YAML or JSON'],
    ] as const) {
      process.env.LEADFLOW_BUYER_SECRETS_FILE = file;
      const error = await startTestDistribution(database).then(
        async (stack) => {
          await stack.close();
          return expect.fail('the service started');
        },
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.equal(message);
    }
  });

  it('starts with a usable file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-secrets-'));
    process.env.LEADFLOW_BUYER_SECRETS_FILE = path.join(dir, 'ok.yaml');
    await writeFile(process.env.LEADFLOW_BUYER_SECRETS_FILE, 'acme: {token: tok-abc}\n');
    const stack = await startTestDistribution(database);
    await stack.close();
    expect(serviceValues().secret('acme.token')).to.equal('tok-abc');
  });
});
