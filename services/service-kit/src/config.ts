import { isIP } from 'node:net';
import path from 'node:path';
import { type CrashSetting, parseCrashSetting } from './crash-points.js';
import { LOG_FORMATS, type LogFormat } from './log-format.js';
import { isLoopbackHost, isLoopbackTarget } from './loopback.js';
import { STRONG_TOKEN_ADVICE, tokenWeakness } from './secret-strength.js';

/** A bad environment value, reported at start with the variable's name. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, fallback: number): number {
  return integer(env, name, fallback, 0, 65535);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A whole number in min..max, or undefined when the variable is unset or empty. */
function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  if (env[name] === undefined || env[name] === '') return undefined;
  return integer(env, name, min, min, max); // set, so the fallback never applies
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function logLevel(env: Env): string {
  const level = env.LEADFLOW_LOG_LEVEL || 'info';
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(level)) throw new ConfigError(`LEADFLOW_LOG_LEVEL must be one of ${levels.join(', ')}`);
  return level;
}

/** LEADFLOW_LOG_FORMAT: json or pretty; unset, readable lines on a terminal and JSON anywhere else. */
export function logFormat(env: Env, terminal = process.stdout.isTTY === true): LogFormat {
  return oneOf(env, 'LEADFLOW_LOG_FORMAT', LOG_FORMATS, terminal ? 'pretty' : 'json');
}

// Secret checks: a token an API trusts must not be a template's placeholder or guessable.
function bearerToken(env: Env, name: string): string | undefined {
  const token = env[name] || undefined;
  const weakness = token === undefined ? undefined : tokenWeakness(token);
  if (weakness) throw new ConfigError(`${name} is refused: ${weakness}; ${STRONG_TOKEN_ADVICE}`);
  return token;
}

/** One of `values`, or `fallback` when the variable is unset or empty. */
function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}`);
  return raw as T;
}

/**
 * How a sale walks the tiers: `strict_tiers`, each tier pinged and posted to before the next is
 * pinged; `price_groups`, every tier pinged at once, then the tiers posted to one after the other,
 * the one with the best offer first; `auction`, every tier pinged at once and all offers ranked together.
 */
export const ROUTING_MODES = ['strict_tiers', 'price_groups', 'auction'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

/** `expected_value`: price order unless the time left calls for another (learned figures); `price`: always price order. */
export const POST_ORDERS = ['expected_value', 'price'] as const;
export type PostOrder = (typeof POST_ORDERS)[number];

export const DEFAULT_HTTP_PORT = 3000;
export const DEFAULT_GRPC_PORT = 50051;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
export const DEFAULT_AUTH_FAILURE_LIMIT = 20;
/** The distribution service's Prometheus listener: the port the OpenTelemetry Prometheus exporter uses too. */
export const DEFAULT_METRICS_PORT = 9464;
/** How long sensitive lead fields may be kept, in days: for LEADFLOW_PII_RETENTION_DAYS and manual purges alike. */
export const PII_RETENTION_DAYS = { min: 1, max: 3650 } as const;

export function grpcPort(env: Env): number {
  return port(env, 'LEADFLOW_GRPC_PORT', DEFAULT_GRPC_PORT);
}

export function dataDir(env: Env): string {
  return path.resolve(env.LEADFLOW_DATA_DIR || '.leadflow');
}

export interface DistributionConfig {
  grpcHost: string;
  grpcPort: number;
  /** Serves GET /metrics on grpcHost; 0 = a free port. */
  metricsPort: number;
  dataDir: string;
  /** mysql://... ; undefined = embedded SQLite in dataDir. */
  databaseUrl: string | undefined;
  /** Overall time budget for selling one lead, below the gateway's gRPC deadline. */
  sellDeadlineMs: number;
  /** How long a tier waits for bids; undefined = learned from the bidders' answer times (ping-window.ts). */
  pingWindowMs: number | undefined;
  routingMode: RoutingMode;
  postOrder: PostOrder;
  /** Secrets from the environment; on the embedded default, missing ones are generated into dataDir. */
  secrets: {
    adminToken: string | undefined;
    piiKeys: string | undefined;
    hmacKey: string | undefined;
  };
  logLevel: string;
  logFormat: LogFormat;
  /** The buyer simulator the embedded default's demo buyers point at (set by `npm start`). */
  demoSimulatorUrl: string | undefined;
  /** Sensitive lead fields older than this many days are purged automatically; undefined = kept. */
  piiRetentionDays: number | undefined;
  /** How often stale and unconfirmed leads are swept (recovery, buyers' status lookups). */
  reconcileIntervalMs: number;
  /**
   * How long after it arrived a lead whose call ended without an outcome (DEADLINE_TOO_SHORT, a failed
   * step) waits for its publisher's retry before the reconciler closes it as rejected.
   */
  leadRetryWindowMs: number;
  /** For a whole exchange with a publisher's postback receiver. */
  postbackTimeoutMs: number;
  /** How long a publisher event is retried, from when it was written, before it is given up. */
  postbackRetryHours: number;
  /** Fault injection for crash tests (LEADFLOW_CRASH_AT); undefined in production. */
  crashAt: CrashSetting | undefined;
  /** TLS of the gRPC listener and who may call what. */
  grpcTransport: GrpcServerTransport;
}

export interface GatewayConfig {
  httpHost: string;
  httpPort: number;
  /** host:port of a distribution service (or of the load balancer in front of them). */
  distributionAddress: string;
  /** gRPC deadline of every intake call. */
  intakeDeadlineMs: number;
  /** redis://... ; undefined = in-process rate limiter. */
  redisUrl: string | undefined;
  defaultRateLimitPerMinute: number;
  logLevel: string;
  logFormat?: LogFormat;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined;
  /** TLS of the gRPC connection to the distribution service; undefined = plaintext. */
  distributionTransport?: GrpcClientTransport | undefined;
  httpTimeouts: HttpTimeouts;
  /** Failed authentications allowed per client address in any rolling 60 seconds. */
  authFailureLimit: number;
  /**
   * Which peers' X-Forwarded-For names the client (Fastify's trustProxy): false = none, the
   * TCP peer is the client; else addresses, CIDR ranges and proxy-addr's names.
   */
  trustProxy: false | string[];
}

/** How long a client may take, in milliseconds; past them the gateway answers 408 or closes the connection. */
export interface HttpTimeouts {
  /** From a request's first byte to the end of its headers (also: a new connection's first request). */
  headersMs: number;
  /** From a request's first byte to the end of its body. */
  requestMs: number;
  /** How long a keep-alive connection may sit idle between requests. */
  keepAliveMs: number;
}

function crashSetting(env: Env): CrashSetting | undefined {
  const raw = env.LEADFLOW_CRASH_AT;
  if (raw === undefined || raw === '') return undefined;
  try {
    return parseCrashSetting(raw);
  } catch (error) {
    throw new ConfigError(`LEADFLOW_CRASH_AT ${(error as Error).message}`);
  }
}

export function loadDistributionConfig(env: Env = process.env): DistributionConfig {
  const databaseUrl = url(env, 'DATABASE_URL', ['mysql:']);
  const secrets = {
    adminToken: bearerToken(env, 'LEADFLOW_ADMIN_TOKEN'),
    piiKeys: env.LEADFLOW_PII_KEYS || undefined,
    hmacKey: env.LEADFLOW_HMAC_KEY || undefined,
  };
  if (databaseUrl) {
    const missing = Object.entries({
      LEADFLOW_ADMIN_TOKEN: secrets.adminToken,
      LEADFLOW_PII_KEYS: secrets.piiKeys,
      LEADFLOW_HMAC_KEY: secrets.hmacKey,
    })
      .filter(([, value]) => !value)
      .map(([name]) => name);
    if (missing.length > 0) {
      throw new ConfigError(
        `${missing.join(', ')} must be set when DATABASE_URL is set: every instance must share the same secrets. ` +
          'Generate them once with `leadflow secrets generate` (npm run leadflow -- secrets generate) and give every ' +
          'distribution service the same values',
      );
    }
  }
  const grpcHost = env.LEADFLOW_GRPC_HOST || '127.0.0.1';
  const config: DistributionConfig = {
    grpcHost,
    grpcPort: grpcPort(env),
    metricsPort: port(env, 'LEADFLOW_METRICS_PORT', DEFAULT_METRICS_PORT),
    dataDir: dataDir(env),
    databaseUrl,
    sellDeadlineMs: integer(env, 'LEADFLOW_SELL_DEADLINE_MS', 10_000, 100, 600_000),
    pingWindowMs: optionalInteger(env, 'LEADFLOW_PING_WINDOW_MS', 1, 600_000),
    routingMode: oneOf(env, 'LEADFLOW_ROUTING_MODE', ROUTING_MODES, 'strict_tiers'),
    postOrder: oneOf(env, 'LEADFLOW_POST_ORDER', POST_ORDERS, 'expected_value'),
    secrets,
    logLevel: logLevel(env),
    logFormat: logFormat(env),
    demoSimulatorUrl: url(env, 'LEADFLOW_DEMO_SIMULATOR_URL', ['http:', 'https:']),
    piiRetentionDays: optionalInteger(
      env,
      'LEADFLOW_PII_RETENTION_DAYS',
      PII_RETENTION_DAYS.min,
      PII_RETENTION_DAYS.max,
    ),
    reconcileIntervalMs: integer(env, 'LEADFLOW_RECONCILE_INTERVAL_MS', 5000, 100, 3_600_000),
    leadRetryWindowMs: integer(env, 'LEADFLOW_LEAD_RETRY_WINDOW_MS', 900_000, 1000, 86_400_000),
    postbackTimeoutMs: integer(env, 'LEADFLOW_POSTBACK_TIMEOUT_MS', 5000, 100, 60_000),
    postbackRetryHours: integer(env, 'LEADFLOW_POSTBACK_RETRY_HOURS', 24, 1, 720),
    crashAt: crashSetting(env),
    grpcTransport: grpcServerTransport(env, grpcHost),
  };
  return config;
}

function httpTimeouts(env: Env): HttpTimeouts {
  const headersMs = integer(env, 'LEADFLOW_HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestMs = integer(env, 'LEADFLOW_HTTP_REQUEST_TIMEOUT_MS', 20_000, 100, 600_000);
  if (requestMs < headersMs) {
    throw new ConfigError(
      `LEADFLOW_HTTP_REQUEST_TIMEOUT_MS (${requestMs}) must be at least LEADFLOW_HTTP_HEADERS_TIMEOUT_MS (${headersMs}): it covers the headers too`,
    );
  }
  return { headersMs, requestMs, keepAliveMs: integer(env, 'LEADFLOW_HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000) };
}

const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * LEADFLOW_TRUST_PROXY: unset or `false` = trust no proxy; otherwise a comma-separated list of addresses,
 * CIDR ranges and the names loopback, linklocal, uniquelocal. `true` (believe every X-Forwarded-For) and hop
 * counts are refused: with them a client could pick the address it is limited by.
 */
function trustProxy(env: Env): false | string[] {
  const raw = (env.LEADFLOW_TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const validAddress = TRUST_PROXY_NAMES.includes(entry) || (address !== undefined && isIP(address) !== 0);
    const validPrefix =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (isIP(address ?? '') === 4 ? 32 : 128));
    if (!validAddress || !validPrefix || rest.length > 0) {
      throw new ConfigError(
        'LEADFLOW_TRUST_PROXY must be false or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal',
      );
    }
  }
  return entries;
}

export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  const distributionAddress = env.LEADFLOW_DISTRIBUTION_ADDRESS || `127.0.0.1:${grpcPort(env)}`;
  return {
    httpHost: env.LEADFLOW_HTTP_HOST || '127.0.0.1',
    httpPort: port(env, 'LEADFLOW_HTTP_PORT', DEFAULT_HTTP_PORT),
    distributionAddress,
    intakeDeadlineMs: integer(env, 'LEADFLOW_INTAKE_DEADLINE_MS', 15_000, 200, 600_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    defaultRateLimitPerMinute: integer(env, 'LEADFLOW_DEFAULT_RATE_LIMIT', DEFAULT_RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
    logLevel: logLevel(env),
    logFormat: logFormat(env),
    distributionTransport: distributionTransport(env, distributionAddress),
    httpTimeouts: httpTimeouts(env),
    authFailureLimit: integer(env, 'LEADFLOW_AUTH_FAILURE_LIMIT', DEFAULT_AUTH_FAILURE_LIMIT, 1, 100_000),
    trustProxy: trustProxy(env),
    metricsToken: bearerToken(env, 'LEADFLOW_METRICS_TOKEN'),
  };
}

// ---- gRPC transport security ------------------------------------------------------------------
// The gRPC hop carries whole leads and the admin token. Beyond loopback it is TLS, optionally
// mutual (a client certificate names the gateway); plaintext is refused there unless
// LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT=1 says that the network itself encrypts (a service mesh).

export const ALLOW_INSECURE_PLAINTEXT = 'LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT';
/** The certificate name that may call SubmitLead and ResolvePublisherKey unless LEADFLOW_GRPC_GATEWAY_IDENTITIES says otherwise. */
export const DEFAULT_GATEWAY_IDENTITY = 'leadflow-gateway';

/** A PEM file, and where its path was given (a variable or a flag), for messages. */
export interface TlsFile {
  path: string;
  source: string;
}

/** A certificate (chain) and its private key. */
export interface TlsIdentity {
  cert: TlsFile;
  key: TlsFile;
}

export interface GrpcServerTls {
  identity: TlsIdentity;
  /** Set: mutual TLS, every client presents a certificate issued by this CA. */
  clientCa: TlsFile | undefined;
}

export interface GrpcServerTransport {
  /** undefined: plaintext (loopback, or allowed by ALLOW_INSECURE_PLAINTEXT). */
  tls: GrpcServerTls | undefined;
  /** With mutual TLS: the certificate names (subject CN, DNS or URI SAN) that may call the gateway's methods. */
  gatewayIdentities: string[];
  allowInsecurePlaintext: boolean;
}

export interface GrpcClientTls {
  /** The CA that issued the server's certificate. */
  ca: TlsFile;
  /** The client's own certificate, for mutual TLS. */
  identity: TlsIdentity | undefined;
}

export interface GrpcClientTransport {
  /** undefined: plaintext (a loopback target, or allowed by ALLOW_INSECURE_PLAINTEXT). */
  tls: GrpcClientTls | undefined;
  allowInsecurePlaintext: boolean;
}

export function tlsFile(env: Env, name: string): TlsFile | undefined {
  const raw = env[name];
  return raw ? { path: path.resolve(raw), source: name } : undefined;
}

export function allowsInsecurePlaintext(env: Env): boolean {
  const raw = env[ALLOW_INSECURE_PLAINTEXT];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${ALLOW_INSECURE_PLAINTEXT} must be 1 or 0, got "${raw}"`);
}

function tlsIdentity(
  cert: TlsFile | undefined,
  key: TlsFile | undefined,
  certSource: string,
  keySource: string,
): TlsIdentity | undefined {
  if (!cert !== !key) throw new ConfigError(`${certSource} and ${keySource} go together: set both or neither`);
  return cert && key ? { cert, key } : undefined;
}

function identityNames(env: Env): string[] {
  const raw = env.LEADFLOW_GRPC_GATEWAY_IDENTITIES;
  if (!raw) return [DEFAULT_GATEWAY_IDENTITY];
  const names = raw.split(',').map((name) => name.trim());
  if (names.some((name) => name === '' || /\s/.test(name))) {
    throw new ConfigError(
      'LEADFLOW_GRPC_GATEWAY_IDENTITIES must be a comma-separated list of certificate names without spaces',
    );
  }
  return names;
}

/**
 * Why the gRPC server must not listen on `host` with this transport, or undefined when it may:
 * plaintext is for loopback only.
 */
export function plaintextListenRefusal(host: string, transport: GrpcServerTransport): string | undefined {
  if (transport.tls || transport.allowInsecurePlaintext || isLoopbackHost(host)) return undefined;
  return (
    `LEADFLOW_GRPC_HOST is ${host}, which is not a loopback address, and no TLS is configured: leads and the ` +
    'admin token would cross the network in clear. Set LEADFLOW_GRPC_TLS_CERT and LEADFLOW_GRPC_TLS_KEY (and ' +
    'LEADFLOW_GRPC_TLS_CLIENT_CA for mutual TLS), or listen on 127.0.0.1. Only on a network that encrypts by ' +
    `itself (a service mesh with mutual TLS), set ${ALLOW_INSECURE_PLAINTEXT}=1`
  );
}

function grpcServerTransport(env: Env, host: string): GrpcServerTransport {
  const identity = tlsIdentity(
    tlsFile(env, 'LEADFLOW_GRPC_TLS_CERT'),
    tlsFile(env, 'LEADFLOW_GRPC_TLS_KEY'),
    'LEADFLOW_GRPC_TLS_CERT',
    'LEADFLOW_GRPC_TLS_KEY',
  );
  const clientCa = tlsFile(env, 'LEADFLOW_GRPC_TLS_CLIENT_CA');
  if (clientCa && !identity) {
    throw new ConfigError(
      'LEADFLOW_GRPC_TLS_CLIENT_CA needs LEADFLOW_GRPC_TLS_CERT and LEADFLOW_GRPC_TLS_KEY: mutual TLS is TLS first',
    );
  }
  if (env.LEADFLOW_GRPC_GATEWAY_IDENTITIES && !clientCa) {
    throw new ConfigError(
      'LEADFLOW_GRPC_GATEWAY_IDENTITIES needs LEADFLOW_GRPC_TLS_CLIENT_CA: without client certificates there is no identity to check',
    );
  }
  const transport: GrpcServerTransport = {
    tls: identity && { identity, clientCa },
    gatewayIdentities: identityNames(env),
    allowInsecurePlaintext: allowsInsecurePlaintext(env),
  };
  const refusal = plaintextListenRefusal(host, transport);
  if (refusal) throw new ConfigError(refusal);
  return transport;
}

/**
 * How a client reaches a gRPC target: TLS when a CA is given (with a client certificate for mutual
 * TLS), plaintext only to a loopback target unless allowed.
 */
export function grpcClientTransport(
  target: string,
  targetSource: string,
  files: { ca: TlsFile | undefined; cert: TlsFile | undefined; key: TlsFile | undefined },
  names: { ca: string; cert: string; key: string },
  allowInsecurePlaintext: boolean,
): GrpcClientTransport {
  const identity = tlsIdentity(files.cert, files.key, names.cert, names.key);
  if (identity && !files.ca) {
    throw new ConfigError(
      `${names.cert} is a client certificate for TLS: set ${names.ca}, the CA that issued the server's certificate, too`,
    );
  }
  if (!files.ca && !allowInsecurePlaintext && !isLoopbackTarget(target)) {
    throw new ConfigError(
      `${targetSource} is ${target}, which is not on this machine, and no TLS is configured: leads and tokens would ` +
        `cross the network in clear. Set ${names.ca} to the CA that issued the server's certificate, or, only on a ` +
        `network that encrypts by itself (a service mesh with mutual TLS), set ${ALLOW_INSECURE_PLAINTEXT}=1`,
    );
  }
  return { tls: files.ca && { ca: files.ca, identity }, allowInsecurePlaintext };
}

const DISTRIBUTION_TLS = {
  ca: 'LEADFLOW_DISTRIBUTION_TLS_CA',
  cert: 'LEADFLOW_DISTRIBUTION_TLS_CERT',
  key: 'LEADFLOW_DISTRIBUTION_TLS_KEY',
};

function distributionTransport(env: Env, address: string): GrpcClientTransport {
  const files = {
    ca: tlsFile(env, DISTRIBUTION_TLS.ca),
    cert: tlsFile(env, DISTRIBUTION_TLS.cert),
    key: tlsFile(env, DISTRIBUTION_TLS.key),
  };
  return grpcClientTransport(
    address,
    'LEADFLOW_DISTRIBUTION_ADDRESS',
    files,
    DISTRIBUTION_TLS,
    allowsInsecurePlaintext(env),
  );
}
