import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';
import { SECRETS_FILE } from '@leadflow/distribution/src/security/secrets';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { personLead, piiKey, submitLead } from '../../../support/pii-leads.js';
import { runLeadflow } from '../../../support/run-leadflow.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';

interface StoredSecrets {
  adminToken: string;
  piiKeys: string;
  hmacKey: string;
}

describe('leadflow pii rotate-key on the embedded default', () => {
  let database: TestDatabase;
  let dataDir: string;
  let stack: TestDistribution | undefined;
  const sent = new Map<string, Record<string, string>>();

  const secretsFile = () => path.join(dataDir, SECRETS_FILE);
  const readSecrets = async (): Promise<StoredSecrets> => JSON.parse(await readFile(secretsFile(), 'utf8'));
  /** The CLI as an operator runs it on the machine of the embedded default: data dir and port, no other setting. */
  const leadflow = (...argv: string[]) =>
    runLeadflow(argv, {
      LEADFLOW_DATA_DIR: dataDir,
      ...(stack ? { LEADFLOW_GRPC_PORT: String(stack.service.port) } : {}),
    });
  const startService = async () => {
    stack = await startTestDistribution(database);
  };
  const stopService = async () => {
    await stack?.close();
    stack = undefined;
  };
  /** No key of the ring, whole or as its base64 alone, appears in the output. */
  const expectNoKeyIn = (text: string, secrets: StoredSecrets) => {
    for (const entry of secrets.piiKeys.split(',')) expect(text).not.to.include(entry.slice(entry.indexOf(':') + 1));
  };

  before(async () => {
    database = await sqliteDatabase();
    dataDir = database.env.LEADFLOW_DATA_DIR;
    await startService();
    const { key } = await stack!.createPublisher();
    for (let n = 1; n <= 5; n++) {
      const { body, sensitive } = personLead(n);
      sent.set(await submitLead(stack!, key, body), sensitive);
    }
    await stopService();
  });
  after(async () => {
    await stopService();
    await database?.drop();
  });

  it('adds a new key first, keeps the old one and every other secret, and prints no key', async () => {
    const before = await readSecrets();
    expect(before.piiKeys).to.match(/^k1:[^,]+$/);
    const run = await leadflow('pii', 'rotate-key', '--json');
    expect(run.code).to.equal(0);
    expect(run.stderr).to.equal('');
    expect(JSON.parse(run.stdout)).to.deep.equal({ file: secretsFile(), activeKeyId: 'k2', keyIds: ['k2', 'k1'] });

    const after = await readSecrets();
    expect(after.adminToken).to.equal(before.adminToken);
    expect(after.hmacKey).to.equal(before.hmacKey);
    expect(after.piiKeys).to.match(/^k2:[A-Za-z0-9+/]{43}=,/);
    expect(after.piiKeys.endsWith(`,${before.piiKeys}`)).to.equal(true);
    expect(new PiiCipher(after.piiKeys).activeKeyId).to.equal('k2');
    expect((await stat(secretsFile())).mode & 0o777).to.equal(0o600);
    expectNoKeyIn(run.stdout, after);
  });

  it('then, after a restart, `leadflow pii reencrypt` moves every lead to the new key', async () => {
    await startService();
    const run = await leadflow('pii', 'reencrypt', '--json');
    expect(run.stderr).to.equal('');
    expect(JSON.parse(run.stdout)).to.deep.equal({ reencrypted: 5, activeKeyId: 'k2' });

    const ring = new PiiCipher((await readSecrets()).piiKeys);
    const rows = await stack!.service.db.selectFrom('leads').select(['id', 'sensitive']).execute();
    expect(rows).to.have.length(5);
    for (const row of rows) {
      expect(PiiCipher.keyIdOf(row.sensitive)).to.equal('k2');
      expect(JSON.parse(ring.decrypt(row.sensitive))).to.deep.equal(sent.get(row.id));
    }
    await stopService();
  });

  it('says in words what to do next, naming the whole ring', async () => {
    const run = await leadflow('pii', 'rotate-key');
    expect(run.code).to.equal(0);
    expect(run.stdout).to.equal(
      `Added PII key k3 first in ${secretsFile()} (key ring: k3, k2, k1).\n` +
        'Restart the distribution service so that it encrypts with k3, then run `leadflow pii reencrypt` to re-encrypt the stored leads.\n',
    );
    expectNoKeyIn(run.stdout, await readSecrets());
  });

  it('refuses when LEADFLOW_PII_KEYS is set, leaving secrets.json alone', async () => {
    const before = await readFile(secretsFile(), 'utf8');
    const run = await runLeadflow(['pii', 'rotate-key'], {
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_PII_KEYS: piiKey('prod'),
    });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/^leadflow: LEADFLOW_PII_KEYS is set: the PII keys live in the environment/);
    expect(await readFile(secretsFile(), 'utf8')).to.equal(before);
  });

  it('refuses where no service has kept its data', async () => {
    const empty = path.join(dataDir, 'nothing-here');
    const run = await runLeadflow(['pii', 'rotate-key'], { LEADFLOW_DATA_DIR: empty });
    expect(run).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `leadflow: no ${SECRETS_FILE} in ${empty}: run where the service keeps its data (set LEADFLOW_DATA_DIR)\n`,
    });
  });

  it('never quotes a damaged secrets.json', async () => {
    const damaged = path.join(dataDir, 'damaged');
    await mkdir(damaged);
    await writeFile(path.join(damaged, SECRETS_FILE), '{"piiKeys": "k1:c2VjcmV0LWtleS1tYXRlcmlhbA==",');
    const run = await runLeadflow(['pii', 'rotate-key'], { LEADFLOW_DATA_DIR: damaged });
    expect(run).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `leadflow: cannot rotate the PII key in ${damaged}: it is not valid JSON\n`,
    });
  });

  it('is listed with the other pii commands', async () => {
    const run = await runLeadflow(['pii', '--help']);
    expect(run.code).to.equal(0);
    for (const command of ['purge --older-than-days N', 'reencrypt [--batch-size N]', 'rotate-key']) {
      expect(run.stdout).to.include(`leadflow pii ${command}`);
    }
  });
});
