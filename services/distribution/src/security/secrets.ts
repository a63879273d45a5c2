import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type DistributionConfig } from '@leadflow/service-kit/config';
import { STRONG_TOKEN_ADVICE, tokenWeakness } from '@leadflow/service-kit/secret-strength';
import { OWNER_ONLY, restrictToOwner, SQLITE_FILE } from '../db/data-files.js';

/** The secrets one deployment shares between its distribution services and its CLI. */
export interface Secrets {
  adminToken: string;
  /** `kid:base64key` pairs, comma-separated; the first encrypts, all decrypt. */
  piiKeys: string;
  /** base64 of the HMAC key behind the duplicate-check hashes. */
  hmacKey: string;
}

export const SECRETS_FILE = 'secrets.json';

/** A fresh admin token, PII key ring (one key, k1) and HMAC key, each from 32 random bytes. */
export function generateSecrets(): Secrets {
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
  let parsed: Partial<Record<keyof Secrets, unknown>>;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never the parser's message: it quotes the text around the fault, which is secret material.
    throw new SyntaxError(
      `${file} is not valid JSON: restore it from a backup (it holds the keys of the stored leads)`,
    );
  }
  const names = ['adminToken', 'piiKeys', 'hmacKey'] as const;
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    names.some((name) => typeof parsed[name] !== 'string' || parsed[name] === '')
  ) {
    throw new ConfigError(`${file} is incomplete: it needs adminToken, piiKeys and hmacKey`);
  }
  return parsed as Secrets;
}

/** Makes the directory entry of a just renamed or linked file durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the whole file under a temporary name, synced and owner-only, and returns that name. */
async function writeTemporary(file: string, secrets: Secrets): Promise<string> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', OWNER_ONLY);
  try {
    await handle.chmod(OWNER_ONLY); // whatever the umask
    await handle.writeFile(`${JSON.stringify(secrets, null, 2)}\n`);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  return temporary;
}

/**
 * Creates the file whole or not at all, and only if it does not exist: a
 * crash leaves no torn secrets.json, and of two processes starting at once
 * the second reads the first one's (link fails when the name exists).
 */
async function createSecretsFile(file: string, secrets: Secrets): Promise<boolean> {
  const temporary = await writeTemporary(file, secrets);
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  await syncDirectory(path.dirname(file));
  return true;
}

/** Generating keys over a database that already holds leads would make them unreadable. */
function refuseNewKeysOverData(config: Pick<DistributionConfig, 'dataDir'>, file: string): void {
  if (!existsSync(path.join(config.dataDir, SQLITE_FILE))) return;
  throw new ConfigError(
    `${config.dataDir} holds a database but no ${SECRETS_FILE}: restore ${file} from the same backup as the database ` +
      '(or set LEADFLOW_ADMIN_TOKEN, LEADFLOW_PII_KEYS and LEADFLOW_HMAC_KEY); new keys could not read its leads',
  );
}

/**
 * Secrets from the environment where given; on the embedded default the rest
 * come from `secrets.json` in the data directory, generated on first start
 * (readable by the owner only), never over an existing database.
 */
export async function loadSecrets(config: Pick<DistributionConfig, 'dataDir' | 'secrets'>): Promise<Secrets> {
  const fromEnv = config.secrets;
  if (fromEnv.adminToken && fromEnv.piiKeys && fromEnv.hmacKey) {
    return { adminToken: fromEnv.adminToken, piiKeys: fromEnv.piiKeys, hmacKey: fromEnv.hmacKey };
  }
  const file = path.join(config.dataDir, SECRETS_FILE);
  let stored = await readSecretsFile(file);
  if (!stored) {
    refuseNewKeysOverData(config, file);
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    const generated = generateSecrets();
    // Another process created it first: use theirs.
    stored = (await createSecretsFile(file, generated)) ? generated : ((await readSecretsFile(file)) as Secrets);
  }
  restrictToOwner(file);
  // LEADFLOW_ADMIN_TOKEN was checked with the configuration; one from the file is checked here.
  const weakness = fromEnv.adminToken ? undefined : tokenWeakness(stored.adminToken);
  if (weakness) throw new ConfigError(`the admin token in ${file} is refused: ${weakness}; ${STRONG_TOKEN_ADVICE}`);
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
  const temporary = await writeTemporary(file, secrets);
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(path.dirname(file));
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
