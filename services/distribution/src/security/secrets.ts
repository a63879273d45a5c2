import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/** `k<n+1>` for the highest `k<n>` in the ring (k1 -> k2); ids of another form are left alone. */
function nextKeyId(keyRing: string): string {
  const numbers = keyRing.split(',').map((entry) => /^\s*k(\d+):/.exec(entry)?.[1]);
  return `k${Math.max(0, ...numbers.filter((n) => n !== undefined).map(Number)) + 1}`;
}

/** Replaces the file whole or not at all: a torn secrets.json would lose every key, and with them every lead's PII. */
async function replaceSecretsFile(file: string, secrets: Secrets): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(secrets, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export interface RotatedPiiKeys {
  file: string;
  /** The new key's id: the service encrypts with it from its next start. */
  activeKeyId: string;
  /** Every key id of the ring, the active one first. */
  keyIds: string[];
}

/**
 * Embedded default only: puts a new PII key first in the data directory's
 * secrets.json, keeping the others after it so that every stored lead stays
 * readable. Undefined when there is no secrets.json (no service has started
 * there). Key rotation in production goes through LEADFLOW_PII_KEYS instead.
 */
export async function rotateLocalPiiKey(dataDir: string): Promise<RotatedPiiKeys | undefined> {
  const file = path.join(dataDir, SECRETS_FILE);
  const stored = await readSecretsFile(file);
  if (!stored) return undefined;
  const activeKeyId = nextKeyId(stored.piiKeys);
  const piiKeys = `${activeKeyId}:${randomBytes(32).toString('base64')},${stored.piiKeys}`;
  await replaceSecretsFile(file, { ...stored, piiKeys });
  const keyIds = piiKeys.split(',').map((entry) => entry.slice(0, entry.indexOf(':')).trim());
  return { file, activeKeyId, keyIds };
}
