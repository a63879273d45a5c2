import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const MAKE_CERTS = fileURLToPath(new URL('../../deploy/tls/make-certs.sh', import.meta.url));

export interface CertificateFiles {
  cert: string;
  key: string;
  /** The CA that issued every certificate of the set. */
  ca: string;
}

/** A throwaway CA and the three certificates of the gRPC hop, made by deploy/tls/make-certs.sh. */
export interface TestCertificates {
  dir: string;
  distribution: CertificateFiles;
  gateway: CertificateFiles;
  admin: CertificateFiles;
  /** Issues new certificates from the same CA (what an operator runs to renew). */
  renew(args?: string[]): Promise<void>;
  remove(): Promise<void>;
}

function files(dir: string, name: string): CertificateFiles {
  return {
    cert: path.join(dir, name, 'tls.crt'),
    key: path.join(dir, name, 'tls.key'),
    ca: path.join(dir, name, 'ca.crt'),
  };
}

export async function makeCertificates(args: string[] = []): Promise<TestCertificates> {
  const dir = await mkdtemp(path.join(tmpdir(), 'leadflow-certs-'));
  const run = (extra: string[]) => promisify(execFile)('sh', [MAKE_CERTS, ...extra, dir]);
  await run(args);
  return {
    dir,
    distribution: files(dir, 'distribution'),
    gateway: files(dir, 'gateway'),
    admin: files(dir, 'admin'),
    async renew(extra = []) {
      await run(extra);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The serial number of the certificate a TLS server on localhost presents to a new connection from `client`. */
export async function servedCertificateSerial(port: number, client: CertificateFiles): Promise<string> {
  const socket = connect({
    host: 'localhost',
    port,
    servername: 'localhost',
    ALPNProtocols: ['h2'],
    ca: readFileSync(client.ca),
    cert: readFileSync(client.cert),
    key: readFileSync(client.key),
  });
  try {
    await once(socket, 'secureConnect');
    return socket.getPeerCertificate().serialNumber;
  } finally {
    socket.destroy();
  }
}
