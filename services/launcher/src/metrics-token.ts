import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const METRICS_TOKEN_FILE = 'metrics-token.txt';

async function readToken(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The token the gateway's /metrics asks for on `npm start`, kept in the data directory (readable by the
 * owner only) and created on first use, so the endpoint is never open, whatever address the gateway is
 * bound to. Resolves with the token file's path.
 */
export async function ensureMetricsToken(dataDir: string): Promise<{ file: string; token: string }> {
  const file = path.join(dataDir, METRICS_TOKEN_FILE);
  const existing = await readToken(file);
  if (existing) return { file, token: existing };
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = `lfmet_${randomBytes(32).toString('base64url')}`;
  try {
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return { file, token };
  } catch (error) {
    // Another start created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = await readToken(file);
    if (!theirs) throw new Error(`${file} is empty: delete it and start again`);
    return { file, token: theirs };
  }
}
