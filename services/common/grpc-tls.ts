import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { credentials, ServerCredentials, type ChannelCredentials } from '@grpc/grpc-js';
import { ConfigError, type GrpcClientTls, type GrpcServerTls, type TlsFile, type TlsIdentity } from './config.js';

// Certificates and keys are read once, at start: to rotate them, replace the files and restart
// the process. Every file is checked here so that a wrong one stops the start with a message that
// names its setting, never quoting what the file holds.

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function read(file: TlsFile): Buffer {
  try {
    return readFileSync(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new ConfigError(`${file.source}: cannot read ${file.path} (${reason})`);
  }
}

/** The PEM certificates of a file, first one first; at least one. */
function readCertificates(file: TlsFile): { pem: Buffer; certificates: X509Certificate[] } {
  const pem = read(file);
  const blocks = pem.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new ConfigError(`${file.source}: ${file.path} holds no PEM certificate`);
  const certificates = blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new ConfigError(`${file.source}: ${file.path} holds a certificate that cannot be read`);
    }
  });
  return { pem, certificates };
}

function checkValidity(certificate: X509Certificate, file: TlsFile, now: Date): void {
  if (now > new Date(certificate.validTo)) throw new ConfigError(`${file.source}: the certificate in ${file.path} expired on ${certificate.validTo}`);
  if (now < new Date(certificate.validFrom)) throw new ConfigError(`${file.source}: the certificate in ${file.path} is not valid before ${certificate.validFrom}`);
}

export interface LoadedIdentity {
  certChain: Buffer;
  privateKey: Buffer;
  certificate: X509Certificate;
}

/** A certificate chain and its private key, checked to belong together and to be valid now. */
export function loadIdentity(identity: TlsIdentity, now = new Date()): LoadedIdentity {
  const { pem, certificates } = readCertificates(identity.cert);
  const [certificate] = certificates;
  checkValidity(certificate, identity.cert, now);
  const privateKey = read(identity.key);
  let key;
  try {
    key = createPrivateKey(privateKey);
  } catch {
    throw new ConfigError(`${identity.key.source}: ${identity.key.path} holds no unencrypted PEM private key`);
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new ConfigError(`${identity.key.source}: the key in ${identity.key.path} does not belong to the certificate in ${identity.cert.path} (${identity.cert.source})`);
  }
  return { certChain: pem, privateKey, certificate };
}

/** A CA bundle: one or more PEM certificates. */
export function loadCaBundle(file: TlsFile): Buffer {
  return readCertificates(file).pem;
}

export interface ServerTransportCredentials {
  credentials: ServerCredentials;
  /** The server's certificate, undefined for plaintext. */
  certificate: X509Certificate | undefined;
  mutual: boolean;
}

/** TLS (mutual when a client CA is set: the handshake refuses clients without a certificate it issued), or plaintext. */
export function grpcServerCredentials(tls: GrpcServerTls | undefined): ServerTransportCredentials {
  if (!tls) return { credentials: ServerCredentials.createInsecure(), certificate: undefined, mutual: false };
  const identity = loadIdentity(tls.identity);
  const clientCa = tls.clientCa ? loadCaBundle(tls.clientCa) : null;
  return {
    credentials: ServerCredentials.createSsl(clientCa, [{ cert_chain: identity.certChain, private_key: identity.privateKey }], clientCa !== null),
    certificate: identity.certificate,
    mutual: clientCa !== null,
  };
}

/** TLS that verifies the server against the CA (presenting the client's certificate when given), or plaintext. */
export function grpcChannelCredentials(tls: GrpcClientTls | undefined): ChannelCredentials {
  if (!tls) return credentials.createInsecure();
  const ca = loadCaBundle(tls.ca);
  const identity = tls.identity ? loadIdentity(tls.identity) : undefined;
  return credentials.createSsl(ca, identity?.privateKey ?? null, identity?.certChain ?? null);
}
