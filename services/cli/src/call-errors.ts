import { type ServiceError, status } from '@grpc/grpc-js';
import type { Connection } from './connection.js';

/** What a failed TLS handshake came to, from grpc-js's details (otherwise transport noise), in the operator's words. */
function handshakeFailure(details: string): string | undefined {
  if (/alert certificate required/i.test(details))
    return 'the service asks for a client certificate: set --tls-cert and --tls-key';
  if (
    /alert (?:bad|unknown|unsupported|expired|revoked) certificate|alert unknown ca|alert decrypt error/i.test(details)
  ) {
    return 'the service did not accept the client certificate';
  }
  const verification = /Error: ((?:self[- ]signed|unable to|unknown ca|certificate|Hostname|IP:|Host:)[^.\n]*)/i.exec(
    details,
  );
  if (verification) return `the service's certificate was not accepted (${verification[1]}): check --tls-ca`;
  return undefined;
}

function unreachable(error: ServiceError, connection: Connection): string {
  const where = `the leadflow service at ${connection.address}`;
  if (!connection.tls) {
    return `cannot reach ${where} in plaintext (is it running? set --address or LEADFLOW_ADMIN_ADDRESS; if it serves TLS, set --tls-ca or LEADFLOW_ADMIN_TLS_CA)`;
  }
  const failure = handshakeFailure(error.details);
  return failure
    ? `no TLS connection to ${where}: ${failure}`
    : `cannot reach ${where} over TLS (is it running? set --address or LEADFLOW_ADMIN_ADDRESS)`;
}

/** What the operator should be told about a failed call, as one line. */
export function describeCallError(
  error: ServiceError,
  connection: Connection,
  context: { deadlineMs: number; serviceReached: boolean },
): string {
  const name = (status[error.code] ?? `status ${error.code}`).toLowerCase().replaceAll('_', ' ');
  switch (error.code) {
    case status.UNAVAILABLE:
      return context.serviceReached ? `${name}: ${error.details}` : `${name}: ${unreachable(error, connection)}`;
    case status.DEADLINE_EXCEEDED:
      return `${name}: the leadflow service at ${connection.address} did not answer within ${context.deadlineMs / 1000} s`;
    case status.UNAUTHENTICATED:
    case status.PERMISSION_DENIED:
      return `${name}: ${error.details} (token from ${connection.tokenSource})`;
    default:
      return `${name}: ${error.details}`;
  }
}
