import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type DistributionConfig } from '../../../common/config.js';

/** The secrets one deployment shares between its distribution services and its CLI. */
export interface Secrets {
  adminToken: string;
  /** `kid:base64key` pairs, comma-separated; the first encrypts, all decrypt. */
  piiKeys: string;
  /** base64 of the HMAC key behind the duplicate-check hashes. */
  hmacKey: string;
}

export const SECRETS_FILE = 'secrets.json';

function generateSecrets(): Secrets {
  return {
    adminToken: `lfadm_${randomBytes(32).toString('base64url')}`,
    piiKeys: `k1:${randomBytes(32).toString('base64')}`,
    hmacKey: randomBytes(32).toString('base64'),
  };
}

async function readSecretsFile(file: string): Promise<Secrets | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<Secrets>;
  if (!parsed.adminToken || !parsed.piiKeys || !parsed.hmacKey) {
    throw new ConfigError(`${file} is incomplete: it needs adminToken, piiKeys and hmacKey`);
  }
  return parsed as Secrets;
}

/**
 * Secrets from the environment where given; on the embedded default the rest
 * come from `secrets.json` in the data directory, generated on first start
 * (readable by the owner only).
 */
export async function loadSecrets(config: Pick<DistributionConfig, 'dataDir' | 'secrets'>): Promise<Secrets> {
  const fromEnv = config.secrets;
  if (fromEnv.adminToken && fromEnv.piiKeys && fromEnv.hmacKey) {
    return { adminToken: fromEnv.adminToken, piiKeys: fromEnv.piiKeys, hmacKey: fromEnv.hmacKey };
  }
  const file = path.join(config.dataDir, SECRETS_FILE);
  let stored = await readSecretsFile(file);
  if (!stored) {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    stored = generateSecrets();
    try {
      await writeFile(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      stored = (await readSecretsFile(file)) as Secrets;
    }
  }
  return {
    adminToken: fromEnv.adminToken ?? stored.adminToken,
    piiKeys: fromEnv.piiKeys ?? stored.piiKeys,
    hmacKey: fromEnv.hmacKey ?? stored.hmacKey,
  };
}

/** For the CLI: the admin token a local service would use, without creating anything. */
export async function readLocalAdminToken(dataDir: string): Promise<string | undefined> {
  return (await readSecretsFile(path.join(dataDir, SECRETS_FILE)))?.adminToken;
}
