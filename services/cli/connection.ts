import path from 'node:path';
import { ConfigError, dataDir, grpcPort } from '../common/config.js';
import { readLocalAdminToken, SECRETS_FILE } from '../distribution/src/security/secrets.js';
import { CliFailure, UsageError } from './errors.js';

type Env = Record<string, string | undefined>;

/** Where the admin service is and the token to present; the token is never printed. */
export interface Connection {
  address: string;
  token: string;
  /** Where the token came from, for messages: the variable's name or the file's path. */
  tokenSource: string;
}

function localServicePort(env: Env): number {
  try {
    return grpcPort(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliFailure(error.message);
    throw error;
  }
}

/** `--address`, else LEADFLOW_ADMIN_ADDRESS, else the local service's port, as the service itself reads it. */
function resolveAddress(env: Env, addressFlag: string | undefined): string {
  if (addressFlag !== undefined) {
    if (addressFlag === '') throw new UsageError('--address must be HOST:PORT');
    return addressFlag;
  }
  return env.LEADFLOW_ADMIN_ADDRESS || `127.0.0.1:${localServicePort(env)}`;
}

/**
 * LEADFLOW_ADMIN_TOKEN, else the token the embedded default generated into
 * its data directory, found the way the service finds that directory.
 */
async function resolveToken(env: Env): Promise<{ token: string; tokenSource: string }> {
  if (env.LEADFLOW_ADMIN_TOKEN) return { token: env.LEADFLOW_ADMIN_TOKEN, tokenSource: 'LEADFLOW_ADMIN_TOKEN' };
  const directory = dataDir(env);
  const file = path.join(directory, SECRETS_FILE);
  let token: string | undefined;
  try {
    token = await readLocalAdminToken(directory);
  } catch (error) {
    // A JSON syntax error quotes the text around the fault, which may be the token.
    const reason = error instanceof SyntaxError ? 'it is not valid JSON' : (error as Error).message;
    throw new CliFailure(`cannot read the admin token from ${file}: ${reason}`);
  }
  if (!token) {
    throw new CliFailure(
      `no admin token: set LEADFLOW_ADMIN_TOKEN, or run where the service keeps its data (${file} does not exist; set LEADFLOW_DATA_DIR)`,
    );
  }
  return { token, tokenSource: file };
}

export async function resolveConnection(env: Env, addressFlag: string | undefined): Promise<Connection> {
  const address = resolveAddress(env, addressFlag);
  return { address, ...(await resolveToken(env)) };
}
