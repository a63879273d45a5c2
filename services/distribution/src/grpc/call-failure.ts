import { type StatusObject, status } from '@grpc/grpc-js';
import { ERROR_DOMAIN, retryAfter, richStatusMetadata } from '@leadflow/service-kit/rich-status';
import { isTransientConflict } from '../db/database.js';
import { StatusError, type StatusErrorCode } from '../errors.js';

const STATUS_OF: Record<StatusErrorCode, status> = {
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  invalid_argument: status.INVALID_ARGUMENT,
  already_exists: status.ALREADY_EXISTS,
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

/** How long a caller should wait before retrying an UNAVAILABLE that names no delay of its own. */
const DEFAULT_RETRY_DELAY_MS = 1000;

const STORAGE_UNAVAILABLE = new StatusError('unavailable', 'storage is unavailable: retry', {
  reason: 'STORAGE_UNAVAILABLE',
});

/** The answer to a failed call: its status, and google.rpc.Status details in the trailers. */
export function failedCallStatus(error: StatusError): StatusObject {
  const code = STATUS_OF[error.code];
  const { reason, violations, retryDelayMs, metadata: values } = error.details;
  const metadata = richStatusMetadata({
    code,
    message: error.message,
    errorInfo: { reason: reason ?? status[code], domain: ERROR_DOMAIN, metadata: { ...values } },
    badRequest: violations?.length
      ? { fieldViolations: violations.map((violation) => ({ ...violation, localizedMessage: undefined })) }
      : undefined,
    retryInfo: code === status.UNAVAILABLE ? retryAfter(retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) : undefined,
  });
  return { code, details: error.message, metadata };
}

/** The failure as a StatusError when it is one the caller may see; undefined for an internal error. */
export function failureOf(error: unknown): StatusError | undefined {
  if (error instanceof StatusError) return error;
  const { code, fatal } = (error ?? {}) as { code?: unknown; fatal?: unknown };
  // mysql2 marks every error that killed its connection `fatal`; some (a rollback on a
  // connection the server dropped) carry no code.
  // Also a deadlock, a lock wait timeout or a busy SQLite: the engine gave up work that may simply run again.
  if (
    (typeof code === 'string' && UNREACHABLE_DATABASE_CODES.has(code)) ||
    fatal === true ||
    isTransientConflict(error)
  ) {
    return STORAGE_UNAVAILABLE;
  }
  return undefined;
}

/** What a caller learns of a failure that is ours: nothing but that (the details are logged). */
export function internalFailure(): StatusObject {
  const message = 'internal error';
  const errorInfo = { reason: 'INTERNAL', domain: ERROR_DOMAIN, metadata: {} };
  return {
    code: status.INTERNAL,
    details: message,
    metadata: richStatusMetadata({ code: status.INTERNAL, message, errorInfo }),
  };
}
