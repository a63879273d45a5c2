/**
 * The closed set of failures the distribution service reports as gRPC status
 * codes; business outcomes (sold, rejected) are not errors.
 */
export type StatusErrorCode =
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'invalid_argument'
  | 'already_exists'
  | 'failed_precondition'
  | 'unavailable';

/** One offending request field, as google.rpc.BadRequest.FieldViolation. */
export interface FieldViolation {
  /** The field's path in the request message, proto names: `lead.ssn`. */
  field: string;
  /** Never echoes the submitted value. */
  description: string;
  /** UPPER_SNAKE_CASE, stable: what callers branch on. */
  reason: string;
}

export interface StatusErrorDetails {
  /** google.rpc.ErrorInfo reason, UPPER_SNAKE_CASE and stable; the code's name when not given. */
  reason?: string;
  /** google.rpc.BadRequest field violations. */
  violations?: readonly FieldViolation[];
  /** google.rpc.RetryInfo: how long a caller should wait before retrying. */
  retryDelayMs?: number;
  /** google.rpc.ErrorInfo metadata: the values a caller needs to word the failure its own way (lowerCamelCase keys). */
  metadata?: Readonly<Record<string, string>>;
}

/**
 * A failure reported to the caller as a gRPC status with AIP-193 details. Its message is safe to
 * show the caller: it never holds a key or lead value.
 */
export class StatusError extends Error {
  override name = 'StatusError';
  constructor(
    readonly code: StatusErrorCode,
    message: string,
    readonly details: StatusErrorDetails = {},
  ) {
    super(message);
  }
}

/**
 * INVALID_ARGUMENT for one request field, with its field violation. The message defaults to
 * "<field> <description>"; the violation's reason to FIELD_INVALID, ErrorInfo's to INVALID_ARGUMENT.
 */
export function invalidField(
  field: string,
  description: string,
  options: { message?: string; reason?: string; violationReason?: string; metadata?: Record<string, string> } = {},
): StatusError {
  return new StatusError('invalid_argument', options.message ?? `${field} ${description}`, {
    reason: options.reason ?? 'INVALID_ARGUMENT',
    violations: [{ field, description, reason: options.violationReason ?? 'FIELD_INVALID' }],
    metadata: options.metadata,
  });
}

/** What a log line may say of a failure: the driver's code and the error's name, never its message, which may quote a statement's values. */
export function loggedError(error: unknown): { name?: string; code?: unknown } {
  const { name, code } = (error ?? {}) as { name?: string; code?: unknown };
  return { name, code };
}
