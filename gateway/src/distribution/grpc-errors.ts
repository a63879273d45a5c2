import { type ServiceError, status } from '@grpc/grpc-js';
import { leadFieldOfPath } from '@leadflow/core/lead-field-paths';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { type FieldErrors, GatewayError } from '../errors.js';
import { isServiceError } from './distribution-calls.js';

/** A refused lead's field violations keyed by the fields' JSON names, as publishers know them. */
function fieldErrors(error: ServiceError): FieldErrors {
  const violations = readRichStatus(error.metadata)?.badRequest?.fieldViolations ?? [];
  if (violations.length === 0) return { body: 'is not a valid lead request' };
  return Object.fromEntries(
    violations.map((violation) => [leadFieldOfPath(violation.field) ?? 'body', violation.description]),
  );
}

/** For logs: the gRPC status name and the service's detail text (which never carries lead values). */
export function describeCallFailure(error: unknown): string {
  if (isServiceError(error)) return `${status[error.code]}: ${error.details}`;
  return error instanceof Error ? error.name : 'unknown failure';
}

/** A failed SubmitLead call as the gateway's answer, following google/rpc/code.proto. */
export function fromSubmitFailure(error: unknown): GatewayError {
  const detail = describeCallFailure(error);
  if (!isServiceError(error)) return GatewayError.of('INTERNAL_SERVER_ERROR', detail);
  switch (error.code) {
    case status.UNAUTHENTICATED:
      return GatewayError.of('UNAUTHORIZED');
    case status.RESOURCE_EXHAUSTED:
      return GatewayError.rateLimited(1);
    case status.INVALID_ARGUMENT:
    case status.ALREADY_EXISTS:
      return GatewayError.badRequest(fieldErrors(error));
    case status.UNAVAILABLE:
      return GatewayError.serviceUnavailable(detail);
    case status.DEADLINE_EXCEEDED:
      return GatewayError.of('GATEWAY_TIMEOUT', detail);
    default:
      return GatewayError.of('INTERNAL_SERVER_ERROR', detail);
  }
}

/** A failed GetLeadStatus call: NOT_FOUND is an unknown clickid (for this publisher), the rest as for SubmitLead. */
export function fromLeadStatusFailure(error: unknown): GatewayError {
  if (isServiceError(error) && error.code === status.NOT_FOUND) return GatewayError.of('NOT_FOUND');
  return fromSubmitFailure(error);
}
