/** Field name (or `body`) -> message. Messages never echo the submitted value. */
export type FieldErrors = Record<string, string>;

/** The closed set of ways a gateway answer can fail; each has exactly one HTTP status. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNSUPPORTED_ENCODING'
  | 'UNSUPPORTED_CHARSET'
  | 'EXPECTATION_FAILED'
  | 'RATE_LIMITED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL_SERVER_ERROR'
  | 'SERVICE_UNAVAILABLE'
  | 'GATEWAY_TIMEOUT';

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNSUPPORTED_ENCODING: 415,
  UNSUPPORTED_CHARSET: 415,
  EXPECTATION_FAILED: 417,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
};

// Fixed texts: a message never carries anything the client sent.
const MESSAGES: Record<ErrorCode, string> = {
  BAD_REQUEST: 'The request is invalid',
  UNAUTHORIZED: 'Unknown or revoked webmaster key',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed: the Allow header lists the methods this path takes',
  REQUEST_TIMEOUT: 'The request did not arrive in time',
  PAYLOAD_TOO_LARGE: 'The request body exceeds 64 KiB',
  UNSUPPORTED_MEDIA_TYPE: 'Content-Type must be application/json',
  UNSUPPORTED_ENCODING: 'Content-Encoding is not supported: send the body uncompressed',
  UNSUPPORTED_CHARSET: 'The body must be UTF-8: send it as UTF-8, with charset=utf-8 or no charset',
  EXPECTATION_FAILED: 'Only Expect: 100-continue is supported: send the request without another Expect',
  RATE_LIMITED: 'Rate limit exceeded',
  HEADERS_TOO_LARGE: 'The request headers are too large',
  INTERNAL_SERVER_ERROR: 'Internal server error',
  SERVICE_UNAVAILABLE: 'Service temporarily unavailable; retry with backoff',
  GATEWAY_TIMEOUT: 'The lead was not processed in time; retry with the same clickid',
};

/** Seconds a client should wait before retrying a 503. */
const SERVICE_UNAVAILABLE_RETRY_SECONDS = 1;

export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly statusCode: number;

  private constructor(
    readonly code: ErrorCode,
    readonly errors?: FieldErrors,
    /** Seconds, for the Retry-After header (and the body of a 429). */
    readonly retryAfterSeconds?: number,
    /** What went wrong, for the log only; never sent to the client. */
    readonly internalDetail?: string,
  ) {
    super(MESSAGES[code]);
    this.statusCode = STATUS[code];
  }

  static badRequest(errors: FieldErrors): GatewayError {
    return new GatewayError('BAD_REQUEST', errors);
  }

  static rateLimited(retryAfterSeconds: number): GatewayError {
    return new GatewayError('RATE_LIMITED', undefined, Math.max(1, Math.ceil(retryAfterSeconds)));
  }

  static serviceUnavailable(internalDetail?: string): GatewayError {
    return new GatewayError('SERVICE_UNAVAILABLE', undefined, SERVICE_UNAVAILABLE_RETRY_SECONDS, internalDetail);
  }

  static of(code: Exclude<ErrorCode, 'BAD_REQUEST' | 'RATE_LIMITED'>, internalDetail?: string): GatewayError {
    return new GatewayError(code, undefined, undefined, internalDetail);
  }
}

export type ErrorBody =
  | { status: 'error'; errors: FieldErrors }
  | { status: 'error'; message: string; retryAfter?: number };

/** The one error body: 400 carries `errors`, every other status a fixed `message` (429 also `retryAfter`). */
export function errorBody(error: GatewayError): ErrorBody {
  if (error.code === 'BAD_REQUEST') return { status: 'error', errors: error.errors ?? {} };
  if (error.code === 'RATE_LIMITED') {
    return { status: 'error', message: error.message, retryAfter: error.retryAfterSeconds };
  }
  return { status: 'error', message: error.message };
}

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

export function messageOf(code: ErrorCode): string {
  return MESSAGES[code];
}
