import { type handleUnaryCall, type Metadata, type ServerUnaryCall, status } from '@grpc/grpc-js';
import { context, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { Logger } from '../../../common/logger.js';
import { extractTraceContext } from '../../../common/telemetry.js';
import { isTransientConflict } from '../db/database.js';
import { ServiceError, type ServiceErrorCode } from '../errors.js';

const STATUS_OF: Record<ServiceErrorCode, status> = {
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  invalid_argument: status.INVALID_ARGUMENT,
  failed_precondition: status.FAILED_PRECONDITION,
  unavailable: status.UNAVAILABLE,
};

/** Driver codes of a database that cannot be reached right now (and a busy SQLite, any variant): the caller may retry. */
const UNREACHABLE_DATABASE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
]);

interface ServiceFailure {
  code: status;
  details: string;
}

function failureOf(error: unknown): ServiceFailure | undefined {
  if (error instanceof ServiceError) return { code: STATUS_OF[error.code], details: error.message };
  const { code, fatal } = (error ?? {}) as { code?: unknown; fatal?: unknown };
  // mysql2 marks every error that killed its connection `fatal`; some (a rollback on a
  // connection the server dropped) carry no code.
  // Also a deadlock, a lock wait timeout or a busy SQLite: the engine gave up work that may simply run again.
  if (
    (typeof code === 'string' && UNREACHABLE_DATABASE_CODES.has(code)) ||
    fatal === true ||
    isTransientConflict(error)
  ) {
    return { code: status.UNAVAILABLE, details: 'storage is unavailable: retry' };
  }
  return undefined;
}

/** When the caller needs the answer, in epoch ms. */
export function answerBy(call: ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/**
 * Adapts an async handler to grpc-js: a SERVER span joined to the caller's
 * trace, ServiceErrors as their status codes, anything else as INTERNAL with a
 * generic message (logged by name and code only: driver errors can quote SQL
 * parameters).
 */
export function unary<Req, Res>(
  method: string,
  tracer: Tracer,
  logger: Logger,
  handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const parent = extractTraceContext(call.metadata as Metadata);
    context.with(parent, () =>
      tracer.startActiveSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.method': method } },
        (span) => {
          handler(call.request, call).then(
            (response) => {
              span.setAttribute('rpc.grpc.status_code', status.OK);
              span.end();
              callback(null, response);
            },
            (error: unknown) => {
              const failure = failureOf(error);
              const code = failure?.code ?? status.INTERNAL;
              if (!failure) {
                const { name, code: driverCode } = error as { name?: string; code?: unknown };
                logger.error({ method, error: { name, code: driverCode } }, 'request failed');
              }
              span.setAttribute('rpc.grpc.status_code', code);
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.end();
              callback({ code, details: failure?.details ?? 'internal error' });
            },
          );
        },
      ),
    );
  };
}
