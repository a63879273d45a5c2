import {
  DEFAULT_PING_TTL_MS,
  type Endpoint,
  FAULT_KINDS,
  type FaultRates,
  type ReplyFormat,
  type RequiredAuth,
} from './config.js';
import type { Distribution } from './distributions.js';
import { REPLY_PLACEHOLDERS } from './replies.js';

export const ADMIN_PREFIX = '/_simulator/';

/** A config that cannot be used; `issues` name each mistake by its path, e.g. `endpoints[2].latencyMs.uniform`. */
export class SimulatorConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid simulator config:\n  ${issues.join('\n  ')}`);
    this.name = 'SimulatorConfigError';
  }
}

/** A config file or a `PUT /_simulator/config` body. */
export interface SimulatorConfig {
  seed: number | undefined;
  /** The request field naming a lead, for lead-keyed draws (lead-draws.ts). */
  leadKey?: string;
  endpoints: Endpoint[];
}

type Fields = Record<string, unknown>;

class Reader {
  readonly issues: string[] = [];

  fail(path: string, message: string): undefined {
    this.issues.push(`${path}: ${message}`);
    return undefined;
  }

  object(value: unknown, path: string, allowed: readonly string[]): Fields | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return this.fail(path, 'must be an object');
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.fail(`${path}.${key}`, `unknown key (expected one of ${allowed.join(', ')})`);
    }
    return value as Fields;
  }

  number(value: unknown, path: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.fail(path, 'must be a number');
    if (value < min || value > max) return this.fail(path, `must be from ${min} to ${max}`);
    return value;
  }

  string(value: unknown, path: string): string | undefined {
    if (typeof value !== 'string' || value === '') return this.fail(path, 'must be a non-empty string');
    return value;
  }

  oneOf<T extends string>(value: unknown, path: string, choices: readonly T[]): T | undefined {
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    return this.fail(path, `must be one of ${choices.join(', ')}`);
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (typeof value !== 'boolean') return this.fail(path, 'must be true or false');
    return value;
  }
}

function readDistribution(reader: Reader, value: unknown, path: string): Distribution | undefined {
  const fields = reader.object(value, path, ['fixed', 'uniform', 'normal']);
  if (!fields) return undefined;
  const shapes = Object.keys(fields);
  if (shapes.length !== 1) return reader.fail(path, 'must have exactly one of fixed, uniform, normal');
  if ('fixed' in fields) {
    const fixed = reader.number(fields.fixed, `${path}.fixed`);
    return fixed === undefined ? undefined : { fixed };
  }
  if ('uniform' in fields) {
    const range = fields.uniform;
    if (!Array.isArray(range) || range.length !== 2) return reader.fail(`${path}.uniform`, 'must be [min, max]');
    const min = reader.number(range[0], `${path}.uniform[0]`);
    const max = reader.number(range[1], `${path}.uniform[1]`);
    if (min === undefined || max === undefined) return undefined;
    if (min > max) return reader.fail(`${path}.uniform`, 'min must not exceed max');
    return { uniform: [min, max] };
  }
  const normal = reader.object(fields.normal, `${path}.normal`, ['mean', 'sd', 'min', 'max']);
  if (!normal) return undefined;
  const [mean, sd, min, max] = (['mean', 'sd', 'min', 'max'] as const).map((key) =>
    reader.number(normal[key], `${path}.normal.${key}`),
  );
  if (mean === undefined || sd === undefined || min === undefined || max === undefined) return undefined;
  if (!(min <= mean && mean <= max)) return reader.fail(`${path}.normal`, 'must have min <= mean <= max');
  return { normal: { mean, sd, min, max } };
}

function readFaults(reader: Reader, value: unknown, path: string): FaultRates | undefined {
  const rates = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as FaultRates;
  if (value === undefined) return rates;
  const fields = reader.object(value, path, FAULT_KINDS);
  if (!fields) return undefined;
  for (const kind of FAULT_KINDS) {
    if (fields[kind] === undefined) continue;
    const rate = reader.number(fields[kind], `${path}.${kind}`, 0, 1);
    if (rate === undefined) return undefined;
    rates[kind] = rate;
  }
  if (Object.values(rates).reduce((sum, rate) => sum + rate, 0) > 1)
    return reader.fail(path, 'rates must add up to at most 1');
  return rates;
}

function readAuth(reader: Reader, value: unknown, path: string): RequiredAuth | undefined {
  const fields = reader.object(value, path, ['type', 'token', 'username', 'password']);
  if (!fields) return undefined;
  const type = reader.oneOf(fields.type, `${path}.type`, ['bearer', 'basic']);
  if (type === 'bearer') {
    const token = reader.string(fields.token, `${path}.token`);
    return token === undefined ? undefined : { type, token };
  }
  if (type === 'basic') {
    const username = reader.string(fields.username, `${path}.username`);
    const password = reader.string(fields.password, `${path}.password`);
    return username === undefined || password === undefined ? undefined : { type, username, password };
  }
  return undefined;
}

/** An endpoint's own replies: the verdicts of its kind, each a text whose placeholders that verdict fills. */
function readReplies(
  reader: Reader,
  value: unknown,
  path: string,
  verdicts: readonly (keyof typeof REPLY_PLACEHOLDERS)[],
): Record<string, string> | undefined {
  if (value === undefined) return {};
  const fields = reader.object(value, path, verdicts);
  if (!fields) return undefined;
  const replies: Record<string, string> = {};
  for (const verdict of verdicts) {
    if (fields[verdict] === undefined) continue;
    const text = reader.string(fields[verdict], `${path}.${verdict}`);
    if (text === undefined) continue;
    const allowed = REPLY_PLACEHOLDERS[verdict];
    for (const [, name] of text.matchAll(/\{([A-Za-z]\w*)\}/g)) {
      if (!allowed.includes(name!))
        reader.fail(
          `${path}.${verdict}`,
          `unknown placeholder {${name}} (expected ${allowed.map((n) => `{${n}}`).join(', ')})`,
        );
    }
    replies[verdict] = text;
  }
  return replies;
}

const COMMON_KEYS = ['path', 'kind', 'format', 'acceptRate', 'latencyMs', 'errors', 'requireAuth'];
const KEYS_BY_KIND = {
  direct_post: [...COMMON_KEYS, 'price', 'redirectUrl', 'duplicateCheck', 'replies'],
  ping: [...COMMON_KEYS, 'bid', 'pingTtlMs', 'replies'],
  post: [...COMMON_KEYS, 'ping', 'redirectUrl', 'duplicateCheck', 'replies'],
} as const;

function readEndpoint(reader: Reader, value: unknown, path: string): Endpoint | undefined {
  if (typeof value !== 'object' || value === null) return reader.fail(path, 'must be an object');
  const kind = reader.oneOf((value as Fields).kind, `${path}.kind`, ['direct_post', 'ping', 'post'] as const);
  if (!kind) return undefined;
  const fields = reader.object(value, path, KEYS_BY_KIND[kind]);
  if (!fields) return undefined;
  const issuesBefore = reader.issues.length;
  const endpointPath = reader.string(fields.path, `${path}.path`);
  if (endpointPath !== undefined && (!endpointPath.startsWith('/') || endpointPath.startsWith(ADMIN_PREFIX))) {
    reader.fail(`${path}.path`, `must start with / and not with ${ADMIN_PREFIX}`);
  }
  const common = {
    path: endpointPath ?? '',
    format:
      fields.format === undefined
        ? 'json'
        : reader.oneOf<ReplyFormat>(fields.format, `${path}.format`, ['json', 'xml', 'text']),
    acceptRate: fields.acceptRate === undefined ? 1 : reader.number(fields.acceptRate, `${path}.acceptRate`, 0, 1),
    latencyMs:
      fields.latencyMs === undefined ? { fixed: 0 } : readDistribution(reader, fields.latencyMs, `${path}.latencyMs`),
    errors: readFaults(reader, fields.errors, `${path}.errors`),
    requireAuth:
      fields.requireAuth === undefined ? undefined : readAuth(reader, fields.requireAuth, `${path}.requireAuth`),
    replies: readReplies(
      reader,
      fields.replies,
      `${path}.replies`,
      kind === 'ping' ? ['bid', 'noBid'] : ['accepted', 'rejected'],
    ),
  };
  const post = {
    redirectUrl:
      fields.redirectUrl === undefined ? undefined : reader.string(fields.redirectUrl, `${path}.redirectUrl`),
    duplicateCheck:
      fields.duplicateCheck === undefined ? false : reader.boolean(fields.duplicateCheck, `${path}.duplicateCheck`),
  };
  let endpoint: unknown;
  switch (kind) {
    case 'direct_post':
      endpoint = { kind, ...common, ...post, price: readDistribution(reader, fields.price, `${path}.price`) };
      break;
    case 'ping': {
      const pingTtlMs =
        fields.pingTtlMs === undefined ? DEFAULT_PING_TTL_MS : reader.number(fields.pingTtlMs, `${path}.pingTtlMs`, 1);
      endpoint = { kind, ...common, bid: readDistribution(reader, fields.bid, `${path}.bid`), pingTtlMs };
      break;
    }
    case 'post':
      endpoint = { kind, ...common, ...post, ping: reader.string(fields.ping, `${path}.ping`) };
      break;
  }
  // Each reader call above recorded its own mistake; any mistake means no endpoint.
  return reader.issues.length === issuesBefore ? (endpoint as Endpoint) : undefined;
}

function checkTogether(reader: Reader, endpoints: Endpoint[], path: string): void {
  const byPath = new Map<string, Endpoint>();
  endpoints.forEach((endpoint, index) => {
    if (byPath.has(endpoint.path)) reader.fail(`${path}[${index}].path`, `${endpoint.path} is configured twice`);
    byPath.set(endpoint.path, endpoint);
  });
  endpoints.forEach((endpoint, index) => {
    if (endpoint.kind === 'post' && byPath.get(endpoint.ping)?.kind !== 'ping') {
      reader.fail(`${path}[${index}].ping`, `${endpoint.ping} is not a ping endpoint of this config`);
    }
  });
}

/** Validates a list of endpoints; throws SimulatorConfigError listing every mistake. */
export function parseEndpoints(value: unknown, path = 'endpoints'): Endpoint[] {
  const reader = new Reader();
  const endpoints = readEndpointList(reader, value, path);
  if (reader.issues.length > 0) throw new SimulatorConfigError(reader.issues);
  return endpoints;
}

function readEndpointList(reader: Reader, value: unknown, path: string): Endpoint[] {
  if (!Array.isArray(value)) {
    reader.fail(path, 'must be a list of endpoints');
    return [];
  }
  const endpoints = value.map((item, index) => readEndpoint(reader, item, `${path}[${index}]`));
  const valid = endpoints.filter((endpoint): endpoint is Endpoint => endpoint !== undefined);
  if (valid.length === endpoints.length) checkTogether(reader, valid, path);
  return valid;
}

/** Validates a whole config: `{ seed?: number, leadKey?: string, endpoints: [...] }`. */
export function parseSimulatorConfig(value: unknown): SimulatorConfig {
  const reader = new Reader();
  const fields = reader.object(value, 'config', ['seed', 'leadKey', 'endpoints']);
  const seed = fields?.seed === undefined ? undefined : reader.number(fields.seed, 'seed', 0, 2 ** 32 - 1);
  if (seed !== undefined && !Number.isInteger(seed)) reader.fail('seed', 'must be a whole number');
  const leadKey = fields?.leadKey === undefined ? undefined : reader.string(fields.leadKey, 'leadKey');
  const endpoints = fields ? readEndpointList(reader, fields.endpoints, 'endpoints') : [];
  if (reader.issues.length > 0) throw new SimulatorConfigError(reader.issues);
  return { seed, ...(leadKey === undefined ? {} : { leadKey }), endpoints };
}
