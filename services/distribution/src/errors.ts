/**
 * The closed set of failures the distribution service reports as gRPC status
 * codes; business outcomes (sold, rejected, invalid) are not errors.
 */
export type ServiceErrorCode =
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'invalid_argument'
  | 'failed_precondition'
  | 'unavailable';

/** A failure whose message is safe to show the caller: it never holds a key or lead value. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
  ) {
    super(message);
  }
}
