import type { PeerCertificate } from 'node:tls';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import { StatusError } from '../errors.js';

// One entry of Node's `subjectaltname`: `DNS:name`, or a JSON-quoted value when it holds a comma
// or a quote (`DNS:"a, b"`), entries separated by ", ".
const SAN_ENTRY = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/gy;

/** A JSON-quoted value, or undefined when it is not valid JSON (then it names no one). */
function unquoted(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

/** The names a certificate gives its holder: the subject's CN, and its DNS and URI alternative names. */
export function certificateNames(certificate: Pick<PeerCertificate, 'subject' | 'subjectaltname'>): string[] {
  const names: string[] = [];
  const commonName = certificate.subject?.CN;
  if (typeof commonName === 'string') names.push(commonName);
  else if (Array.isArray(commonName)) names.push(...(commonName as string[]));
  const alternatives = certificate.subjectaltname ?? '';
  SAN_ENTRY.lastIndex = 0;
  let entry: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: the sticky scan stops at the end or at the first non-entry
  while (SAN_ENTRY.lastIndex < alternatives.length && (entry = SAN_ENTRY.exec(alternatives)) !== null) {
    const [, kind, raw] = entry;
    if (kind !== 'DNS' && kind !== 'URI') continue;
    const name = raw.startsWith('"') ? unquoted(raw) : raw;
    if (name !== undefined) names.push(name);
  }
  return names;
}

/**
 * Who may call the gateway's methods: undefined without mutual TLS (any caller that reaches the
 * port), else the client certificate must carry one of these names.
 */
export type GatewayIdentities = readonly string[] | undefined;

/** Throws unless the call comes from a gateway: its client certificate names one of `identities`. */
export function requireGateway(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'getAuthContext'>,
  identities: GatewayIdentities,
): void {
  if (identities === undefined) return;
  // Verified by the handshake against the client CA; grpc-js gives none when the peer sent none.
  const certificate = call.getAuthContext().sslPeerCertificate;
  if (!certificate)
    throw new StatusError('unauthenticated', 'a gateway client certificate is required', {
      reason: 'GATEWAY_CERTIFICATE_REQUIRED',
    });
  if (!certificateNames(certificate).some((name) => identities.includes(name))) {
    throw new StatusError(
      'permission_denied',
      'only a gateway may call this method: the client certificate names no gateway identity',
      {
        reason: 'NOT_A_GATEWAY',
      },
    );
  }
}
