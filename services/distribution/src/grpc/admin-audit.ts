import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { Logger } from '@leadflow/service-kit/logger';
import { StatusError } from '../errors.js';
import { certificateNames } from './caller-identity.js';
import type { UnaryMethods } from './unary.js';

/**
 * The request fields an admin action's log line names: ids, names and settings. Anything else (a buyer
 * document with its credentials, a token) is left out by not being listed.
 */
const LOGGED_FIELDS = new Set([
  'name',
  'publisherId',
  'keyId',
  'buyer',
  'active',
  'dryRun',
  'rateLimitPerMinute',
  'payoutShareBps',
  'olderThanDays',
  'batchSize',
  'limit',
  'pageSize',
  'clickid',
  'status',
  'buyerId',
  'leadId',
  'sold',
  'chargeCents',
  'groupBy',
  'timezone',
  'includeTest',
  'clawbackBps',
  // A return's; its note is free text an operator may fill with anything, so it stays out.
  'requestId',
  'reason',
  'creditCents',
]);

function loggedFields(request: unknown): Record<string, unknown> {
  if (typeof request !== 'object' || request === null) return {};
  return Object.fromEntries(
    Object.entries(request).filter(([name, value]) => LOGGED_FIELDS.has(name) && typeof value !== 'object'),
  );
}

/** Who called: the peer address, and the client certificate's names under mutual TLS. */
export function caller(call: Pick<ServerUnaryCall<unknown, unknown>, 'getPeer' | 'getAuthContext'>): {
  peer: string;
  certificate?: string[];
} {
  const certificate = call.getAuthContext().sslPeerCertificate;
  return { peer: call.getPeer(), ...(certificate ? { certificate: certificateNames(certificate) } : {}) };
}

/**
 * Runs an admin call and writes its one audit line: the method, who called, what it named, and how it
 * ended (`ok`, or the error's code; a refused token at warn).
 */
export async function audited<Res>(
  logger: Logger,
  method: string,
  call: ServerUnaryCall<unknown, unknown>,
  run: () => Promise<Res>,
): Promise<Res> {
  const line = { method, caller: caller(call), request: loggedFields(call.request) };
  try {
    const response = await run();
    logger.info({ ...line, outcome: 'ok' }, 'admin action');
    return response;
  } catch (error) {
    const outcome = error instanceof StatusError ? error.code : 'internal';
    const refused = outcome === 'unauthenticated' || outcome === 'permission_denied';
    logger[refused ? 'warn' : 'info']({ ...line, outcome }, 'admin action');
    throw error;
  }
}

/** The same methods, each writing its audit line. */
export function auditedMethods(methods: UnaryMethods, logger: Logger): UnaryMethods {
  return <Req, Res>(name: string, handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) =>
    methods<Req, Res>(name, (request, call) => audited(logger, name, call, () => handler(request, call)));
}
