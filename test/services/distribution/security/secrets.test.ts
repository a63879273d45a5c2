import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadDistributionConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import { tokenWeakness } from '@leadflow/service-kit/secret-strength';
import { expect } from 'chai';
import { endsOnItsOwn, listening, spawnDistribution, stop } from '../../../support/distribution-process.js';

const SECRETS = 'secrets.json';

/** Every 8-character slice of every value: none of it may appear in what the service prints. */
function slices(values: string[]): string[] {
  return values.flatMap((value) =>
    Array.from({ length: Math.max(0, value.length - 7) }, (_, i) => value.slice(i, i + 8)),
  );
}

describe('secrets at start-up, with distribution services as processes', function () {
  this.timeout(120_000);
  let original: string;
  let restored: string;

  before(async () => {
    original = await mkdtemp(path.join(tmpdir(), 'leadflow-secrets-'));
    const service = await spawnDistribution({ LEADFLOW_DATA_DIR: original });
    await listening(service);
    await stop(service);
  });
  beforeEach(async () => {
    restored = await mkdtemp(path.join(tmpdir(), 'leadflow-restore-'));
  });
  afterEach(() => rm(restored, { recursive: true, force: true }));
  after(() => rm(original, { recursive: true, force: true }));

  /** The database as a backup holds it, without secrets.json unless asked. */
  const restoreDatabase = async () => {
    for (const file of ['leadflow.sqlite', 'leadflow.sqlite-wal'])
      await copyFile(path.join(original, file), path.join(restored, file)).catch(() => undefined);
  };
  const startOn = (env: Record<string, string> = {}) => spawnDistribution({ LEADFLOW_DATA_DIR: restored, ...env });

  it('refuses a restored database without its secrets.json, and generates none', async () => {
    await restoreDatabase();
    const { code, output } = await endsOnItsOwn(await startOn());
    expect(code).to.equal(1);
    expect(output).to.include(
      `${restored} holds a database but no secrets.json: restore ${path.join(restored, SECRETS)} from the same backup`,
    );
    await readFile(path.join(restored, SECRETS)).then(
      () => expect.fail('secrets.json was generated'),
      (error: NodeJS.ErrnoException) => expect(error.code).to.equal('ENOENT'),
    );
  });

  it('refuses a restored database started with other keys in the environment', async () => {
    await restoreDatabase();
    const { code, output } = await endsOnItsOwn(
      await startOn({
        LEADFLOW_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
        LEADFLOW_PII_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        LEADFLOW_HMAC_KEY: randomBytes(32).toString('base64'),
      }),
    );
    expect(code).to.equal(1);
    expect(output).to.include(
      'leadflow-distribution: the key ring does not match this database: the HMAC key is not the one',
    );
  });

  it('starts on a restored database with its own secrets.json', async () => {
    await restoreDatabase();
    await copyFile(path.join(original, SECRETS), path.join(restored, SECRETS));
    const service = await startOn();
    await listening(service);
    await stop(service);
  });

  it('reports a corrupt secrets.json without a byte of its secrets', async () => {
    const secrets = JSON.parse(await readFile(path.join(original, SECRETS), 'utf8'));
    // A secret first, then a fault a few characters after it: JSON.parse's message would quote it.
    await writeFile(
      path.join(restored, SECRETS),
      `{"hmacKey": "${secrets.hmacKey}", "piiKeys": ${secrets.piiKeys}", "adminToken": "${secrets.adminToken}"}`,
    );
    const { code, output } = await endsOnItsOwn(await startOn());
    expect(code).to.equal(1);
    expect(output).to.include(`${path.join(restored, SECRETS)} is not valid JSON`);
    for (const slice of slices([secrets.hmacKey, secrets.piiKeys, secrets.adminToken]))
      expect(output).not.to.include(slice);
  });

  for (const [what, token] of [
    ['the template placeholder', 'REPLACE_ME'],
    ['a short token', 'lfadm_abc123'],
    ['a long token without randomness', 'a'.repeat(48)],
    ['a counting sequence', 'abcdefghijklmnopqrstuvwxyz0123456789'],
  ] as const) {
    it(`refuses ${what} as the admin token, without echoing it`, async () => {
      const { code, output } = await endsOnItsOwn(await startOn({ LEADFLOW_ADMIN_TOKEN: token }));
      expect(code).to.equal(1);
      expect(output).to.match(/leadflow-distribution: LEADFLOW_ADMIN_TOKEN is refused: .+; use a random one/);
      expect(output).not.to.include(token);
    });
  }

  it('refuses a weak admin token written into secrets.json', async () => {
    const secrets = JSON.parse(await readFile(path.join(original, SECRETS), 'utf8'));
    await writeFile(path.join(restored, SECRETS), JSON.stringify({ ...secrets, adminToken: 'REPLACE_ME' }));
    const { code, output } = await endsOnItsOwn(await startOn());
    expect(code).to.equal(1);
    expect(output).to.include(`the admin token in ${path.join(restored, SECRETS)} is refused: it is a placeholder`);
  });
});

describe('token strength', () => {
  it('accepts random tokens whose characters happen to repeat (openssl rand -hex 16 output)', () => {
    for (const token of ['af9139cffa626ffc2953cff32f6a29cc', '03344442314dede9888dd6d0440988b4']) {
      expect(tokenWeakness(token), token).to.equal(undefined);
    }
  });

  it('accepts the tokens operators generate', () => {
    for (let i = 0; i < 200; i++) {
      for (const token of [
        randomBytes(16).toString('hex'),
        randomBytes(32).toString('base64'),
        `lfadm_${randomBytes(32).toString('base64url')}`,
      ]) {
        expect(tokenWeakness(token), token).to.equal(undefined);
      }
    }
  });

  it('refuses placeholders, short tokens and patterns', () => {
    expect(tokenWeakness('REPLACE_ME')).to.equal('it is a placeholder');
    expect(tokenWeakness(`changeme-${randomBytes(32).toString('hex')}`)).to.equal('it is a placeholder');
    expect(tokenWeakness(randomBytes(15).toString('hex'))).to.equal('it has 30 characters, fewer than 32');
    expect(tokenWeakness('ab'.repeat(24))).to.equal('it is not random enough');
    expect(tokenWeakness('0123456789'.repeat(4))).to.equal('it is not random enough');
  });
});

describe('weak tokens in the configuration of either process', () => {
  it('refuses a placeholder or weak LEADFLOW_METRICS_TOKEN at the gateway, without echoing it', () => {
    for (const token of ['REPLACE_ME', 'metrics-token-for-tests', 'x'.repeat(40)]) {
      expect(() => loadGatewayConfig({ LEADFLOW_METRICS_TOKEN: token }), token)
        .to.throw(ConfigError, /^LEADFLOW_METRICS_TOKEN is refused: /)
        .with.property('message')
        .that.does.not.include(token);
    }
    expect(loadGatewayConfig({ LEADFLOW_METRICS_TOKEN: randomBytes(32).toString('base64') }).metricsToken).to.be.a(
      'string',
    );
  });

  it('refuses the templates REPLACE_ME for every secret of the distribution service', () => {
    const secrets = {
      LEADFLOW_ADMIN_TOKEN: 'REPLACE_ME',
      LEADFLOW_PII_KEYS: 'REPLACE_ME',
      LEADFLOW_HMAC_KEY: 'REPLACE_ME',
    };
    expect(() => loadDistributionConfig({ DATABASE_URL: 'mysql://db/leadflow', ...secrets })).to.throw(
      ConfigError,
      /^LEADFLOW_ADMIN_TOKEN is refused: it is a placeholder/,
    );
  });
});
