import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type ChannelCredentials, credentials, experimental, ServerCredentials } from '@grpc/grpc-js';
import { ConfigError, type GrpcClientTls, type GrpcServerTls, type TlsFile, type TlsIdentity } from './config.js';

// Certificates and keys are read and checked at start, so that a wrong file stops the start with a
// message that names its setting, never quoting what the file holds; and again when reloaded.

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function read(file: TlsFile): Buffer {
  try {
    return readFileSync(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
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
  if (now > new Date(certificate.validTo))
    throw new ConfigError(`${file.source}: the certificate in ${file.path} expired on ${certificate.validTo}`);
  if (now < new Date(certificate.validFrom))
    throw new ConfigError(
      `${file.source}: the certificate in ${file.path} is not valid before ${certificate.validFrom}`,
    );
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
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKey);
  } catch {
    throw new ConfigError(`${identity.key.source}: ${identity.key.path} holds no unencrypted PEM private key`);
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new ConfigError(
      `${identity.key.source}: the key in ${identity.key.path} does not belong to the certificate in ${identity.cert.path} (${identity.cert.source})`,
    );
  }
  return { certChain: pem, privateKey, certificate };
}

/** A CA bundle: one or more PEM certificates. */
export function loadCaBundle(file: TlsFile): Buffer {
  return readCertificates(file).pem;
}

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/**
 * The TLS files of one process as a grpc-js certificate provider: read and checked at start, and
 * again on each `reload()`. New connections use what was last loaded; connections already open
 * keep theirs. Files that fail the checks leave the previous certificates in use.
 */
export class ReloadableTlsFiles implements experimental.CertificateProvider {
  private identity: LoadedIdentity | undefined;
  private ca: Buffer | undefined;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();

  constructor(private readonly files: { identity: TlsIdentity | undefined; ca: TlsFile | undefined }) {
    this.reload();
  }

  /** The certificate in use, when the files hold one. */
  get certificate(): X509Certificate | undefined {
    return this.identity?.certificate;
  }

  /**
   * Reads and checks the files again: `changed` when new connections now use different files,
   * `unchanged` when they are as they were. Throws a ConfigError when they fail a check.
   */
  reload(now = new Date()): 'changed' | 'unchanged' {
    const identity = this.files.identity ? loadIdentity(this.files.identity, now) : undefined;
    const ca = this.files.ca ? loadCaBundle(this.files.ca) : undefined;
    const same = (a: Buffer | undefined, b: Buffer | undefined) =>
      a === undefined ? b === undefined : b !== undefined && a.equals(b);
    if (
      same(this.identity?.certChain, identity?.certChain) &&
      same(this.identity?.privateKey, identity?.privateKey) &&
      same(this.ca, ca)
    )
      return 'unchanged';
    this.identity = identity;
    this.ca = ca;
    for (const listener of this.caListeners) this.sendCa(listener);
    for (const listener of this.identityListeners) this.sendIdentity(listener);
    return 'changed';
  }

  // grpc-js adds its listener before the watcher that applies what the listener gets: the first
  // update must come on the next tick, as grpc-js's own file watcher sends it.
  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    process.nextTick(() => this.caListeners.has(listener) && this.sendCa(listener));
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    process.nextTick(() => this.identityListeners.has(listener) && this.sendIdentity(listener));
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }

  private sendCa(listener: CaListener): void {
    listener(this.ca ? { caCertificate: this.ca } : null);
  }

  private sendIdentity(listener: IdentityListener): void {
    listener(this.identity ? { certificate: this.identity.certChain, privateKey: this.identity.privateKey } : null);
  }
}

/** Where reloads are told: a pino logger, the service's or Fastify's. */
interface ReloadLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** How often a long-running process looks at its TLS files for renewed certificates. */
export const TLS_FILES_CHECK_INTERVAL_MS = 60_000;

/**
 * Reloads the files every `intervalMs`, logging a renewal, and a failed check once per different
 * failure (the previous certificates stay in use). Returns the function that stops it.
 */
export function reloadPeriodically(
  files: ReloadableTlsFiles,
  logger: ReloadLogger,
  intervalMs = TLS_FILES_CHECK_INTERVAL_MS,
): () => void {
  let lastFailure: string | undefined;
  const timer = setInterval(() => {
    try {
      if (files.reload() === 'changed')
        logger.info({ certificateValidTo: files.certificate?.validTo }, 'TLS certificates reloaded');
      lastFailure = undefined;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      if (error.message !== lastFailure)
        logger.error({ reason: error.message }, 'TLS certificates not reloaded: the previous ones stay in use');
      lastFailure = error.message;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export interface ServerTransportCredentials {
  credentials: ServerCredentials;
  /** The TLS files, undefined for plaintext. */
  files: ReloadableTlsFiles | undefined;
  mutual: boolean;
}

/** TLS (mutual when a client CA is set: the handshake refuses clients without a certificate it issued), or plaintext. */
export function grpcServerCredentials(tls: GrpcServerTls | undefined): ServerTransportCredentials {
  if (!tls) return { credentials: ServerCredentials.createInsecure(), files: undefined, mutual: false };
  const files = new ReloadableTlsFiles({ identity: tls.identity, ca: tls.clientCa });
  const mutual = tls.clientCa !== undefined;
  // The first provider is the server's certificate, the second the CA of client certificates.
  return {
    credentials: experimental.createCertificateProviderServerCredentials(files, mutual ? files : null, mutual),
    files,
    mutual,
  };
}

export interface ChannelTransportCredentials {
  credentials: ChannelCredentials;
  /** The TLS files, undefined for plaintext. */
  files: ReloadableTlsFiles | undefined;
}

/** TLS that verifies the server against the CA (presenting the client's certificate when given), or plaintext. */
export function grpcChannelCredentials(tls: GrpcClientTls | undefined): ChannelTransportCredentials {
  if (!tls) return { credentials: credentials.createInsecure(), files: undefined };
  const files = new ReloadableTlsFiles({ identity: tls.identity, ca: tls.ca });
  return {
    credentials: experimental.createCertificateProviderChannelCredentials(files, tls.identity ? files : null),
    files,
  };
}
