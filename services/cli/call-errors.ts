import { status, type ServiceError } from '@grpc/grpc-js';
import type { Connection } from './connection.js';

/** What the operator should be told about a failed call, as one line. */
export function describeCallError(
  error: ServiceError,
  connection: Connection,
  context: { deadlineMs: number; serviceReached: boolean },
): string {
  const name = (status[error.code] ?? `status ${error.code}`).toLowerCase().replaceAll('_', ' ');
  switch (error.code) {
    case status.UNAVAILABLE:
      // grpc-js fails the call itself when it cannot connect; its details are transport noise.
      return context.serviceReached
        ? `${name}: ${error.details}`
        : `${name}: cannot reach the leadflow service at ${connection.address} (is it running? set --address or LEADFLOW_ADMIN_ADDRESS)`;
    case status.DEADLINE_EXCEEDED:
      return `${name}: the leadflow service at ${connection.address} did not answer within ${context.deadlineMs / 1000} s`;
    case status.UNAUTHENTICATED:
    case status.PERMISSION_DENIED:
      return `${name}: ${error.details} (token from ${connection.tokenSource})`;
    default:
      return `${name}: ${error.details}`;
  }
}
