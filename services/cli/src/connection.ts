import path from 'node:path';
import { readLocalAdminToken, SECRETS_FILE } from '@leadflow/distribution';
import {
  allowsInsecurePlaintext,
  ConfigError,
  dataDir,
  type GrpcClientTls,
  grpcClientTransport,
  grpcPort,
  type TlsFile,
  tlsFile,
} from '@leadflow/service-kit/config';
import { CliFailure, UsageError } from './errors.js';

type Env = Record<string, string | undefined>;

/** Where the admin service is and the token to present; the token is never printed. */
export interface Connection {
  address: string;
  token: string;
  /** Where the token came from, for messages: the variable's name or the file's path. */
  tokenSource: string;
  /** TLS towards the service; undefined = plaintext, which only a loopback address (or an explicit opt-out) allows. */
  tls: GrpcClientTls | undefined;
}

/** What the command line says about the connection; each falls back to its variable. */
export interface ConnectionFlags {
  address: string | undefined;
  tlsCa: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
}

const TLS_SETTINGS = {
  ca: { flag: 'tlsCa', option: '--tls-ca', variable: 'LEADFLOW_ADMIN_TLS_CA' },
  cert: { flag: 'tlsCert', option: '--tls-cert', variable: 'LEADFLOW_ADMIN_TLS_CERT' },
  key: { flag: 'tlsKey', option: '--tls-key', variable: 'LEADFLOW_ADMIN_TLS_KEY' },
} as const;

type TlsFiles = { ca: TlsFile | undefined; cert: TlsFile | undefined; key: TlsFile | undefined };

function flagOrVariable(
  env: Env,
  flags: ConnectionFlags,
  setting: (typeof TLS_SETTINGS)[keyof typeof TLS_SETTINGS],
): TlsFile | undefined {
  const value = flags[setting.flag];
  if (value === undefined) return tlsFile(env, setting.variable);
  if (value === '') throw new UsageError(`${setting.option} must be a file`);
  return { path: path.resolve(value), source: setting.option };
}

/** --tls-ca/--tls-cert/--tls-key, else LEADFLOW_ADMIN_TLS_CA/_CERT/_KEY. */
function tlsFiles(env: Env, flags: ConnectionFlags): TlsFiles {
  return {
    ca: flagOrVariable(env, flags, TLS_SETTINGS.ca),
    cert: flagOrVariable(env, flags, TLS_SETTINGS.cert),
    key: flagOrVariable(env, flags, TLS_SETTINGS.key),
  };
}

/** TLS when a CA is given; plaintext only to a loopback address (the admin token must not cross a network in clear). */
function clientTls(env: Env, files: TlsFiles, address: string, addressSource: string): GrpcClientTls | undefined {
  const names = {
    ca: `--tls-ca (${TLS_SETTINGS.ca.variable})`,
    cert: `--tls-cert (${TLS_SETTINGS.cert.variable})`,
    key: `--tls-key (${TLS_SETTINGS.key.variable})`,
  };
  try {
    return grpcClientTransport(address, addressSource, files, names, allowsInsecurePlaintext(env)).tls;
  } catch (error) {
    if (error instanceof ConfigError) throw new CliFailure(error.message);
    throw error;
  }
}

function localServicePort(env: Env): number {
  try {
    return grpcPort(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliFailure(error.message);
    throw error;
  }
}

const ADDRESS_FORM = 'HOST:PORT, such as 127.0.0.1:50051';

/**
 * Whether an address names where to dial: HOST:PORT ([IPv6]:PORT), also as grpc-js writes a target
 * (`dns:///host:port`, `ipv4:a:port,b:port`), or a `unix:` socket. Anything else would be dialled as a name
 * and fail with whatever the transport says of it.
 */
function isDialable(address: string): boolean {
  if (/^unix(-abstract)?:\S/.test(address)) return true;
  const port = /^\S+:(\d{1,5})$/.exec(address)?.[1];
  return port !== undefined && Number(port) >= 1 && Number(port) <= 65_535;
}

/** `--address`, else LEADFLOW_ADMIN_ADDRESS, else the local service's port, as the service itself reads it. */
function resolveAddress(
  env: Env,
  addressFlag: string | undefined,
  overTls: boolean,
): { address: string; source: string } {
  if (addressFlag !== undefined) {
    if (!isDialable(addressFlag)) throw new UsageError(`--address must be ${ADDRESS_FORM}`);
    return { address: addressFlag, source: '--address' };
  }
  if (env.LEADFLOW_ADMIN_ADDRESS) {
    if (!isDialable(env.LEADFLOW_ADMIN_ADDRESS)) throw new CliFailure(`LEADFLOW_ADMIN_ADDRESS must be ${ADDRESS_FORM}`);
    return { address: env.LEADFLOW_ADMIN_ADDRESS, source: 'LEADFLOW_ADMIN_ADDRESS' };
  }
  // Over TLS the local service is dialled by name: Node warns when TLS names a server by an IP address (RFC 6066).
  return {
    address: `${overTls ? 'localhost' : '127.0.0.1'}:${localServicePort(env)}`,
    source: 'the local default address',
  };
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

export async function resolveConnection(env: Env, flags: ConnectionFlags): Promise<Connection> {
  const files = tlsFiles(env, flags);
  const { address, source } = resolveAddress(env, flags.address, files.ca !== undefined);
  const tls = clientTls(env, files, address, source);
  return { address, tls, ...(await resolveToken(env)) };
}
