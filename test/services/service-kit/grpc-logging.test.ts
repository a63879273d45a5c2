import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { listening, spawnDistribution, stop } from '../../support/distribution-process.js';
import { testKey } from '../../support/gateway.js';
import { jsonLines } from '../../support/json-lines.js';
import { validLeadBody } from '../../support/leads.js';
import { freePort } from '../../support/ports.js';
import { type RunningProcess, startProcess, stopProcess, waitForProcess } from '../../support/source-process.js';
import { waitUntil } from '../../support/wait-until.js';

/*
 * grpc-js logs a metadata entry it cannot hold (a value with a tab) with its value, before any caller is
 * checked: each process that uses grpc-js must write those lines through its own log, naming the header only.
 */

const SSN = '531-72-9846';
/** A header value grpc-js refuses (a tab), with a personal value in it. */
const NOTE = `ssn\t${SSN} dob 1986-04-12`;

/** One gRPC call sent over raw HTTP/2 with `headers`, an empty request; resolves once it has ended. */
async function rawCall(port: number, path: string, headers: http2.OutgoingHttpHeaders): Promise<void> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    stream.on('data', () => {});
    stream.end(Buffer.alloc(5));
    await once(stream, 'close');
  } finally {
    session.close();
  }
}

/** A stand-in for the distribution service that answers every call UNAVAILABLE with the NOTE header. */
async function noteServer(): Promise<{ port: number; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const server = http2.createServer();
  server.on('stream', (stream) => {
    calls += 1;
    stream.on('data', () => {});
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'x-note': NOTE }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '14', 'grpc-message': 'down' }));
    stream.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The header names of the lines that say grpc-js dropped a metadata entry. */
function droppedHeaders(lines: Record<string, unknown>[]): unknown[] {
  return lines.filter((line) => line.source === 'grpc-js').map((line) => line.header);
}

describe('grpc-js log lines: through the service log, naming headers, never their values', function () {
  this.timeout(120_000);
  let dataDir: string;
  let notes: Awaited<ReturnType<typeof noteServer>>;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'leadflow-grpc-logging-'));
    notes = await noteServer();
  });
  after(async () => {
    await notes?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('distribution service: a header it cannot hold, sent before any check, is logged by name in a JSON line', async () => {
    const token = randomBytes(32).toString('base64url');
    const service = await spawnDistribution({
      LEADFLOW_DATA_DIR: dataDir,
      LEADFLOW_ADMIN_TOKEN: token,
      LEADFLOW_LOG_FORMAT: 'json',
    });
    try {
      await listening(service);
      const started = jsonLines(service.running.stdout, 'stdout').find(
        (line) => line.msg === 'distribution service listening',
      );
      const port = Number(started?.port);
      await rawCall(port, '/leadflow.admin.v1.AdminService/ListPublishers', {
        authorization: `Bearer\t${token}`,
        'x-note': NOTE,
      });
    } finally {
      await stop(service);
    }
    const { stdout, stderr } = service.running;
    expect(service.output()).not.to.include(token).and.not.to.include(SSN);
    expect(jsonLines(stderr, 'stderr')).to.deep.equal([]);
    expect(droppedHeaders(jsonLines(stdout, 'stdout'))).to.have.members(['authorization', 'x-note']);
  });

  it('gateway: an answer header it cannot hold is logged by name in a JSON line', async () => {
    const httpPort = await freePort();
    const gateway: RunningProcess = startProcess('gateway/src/main.ts', {
      LEADFLOW_HTTP_HOST: '127.0.0.1',
      LEADFLOW_HTTP_PORT: String(httpPort),
      LEADFLOW_DISTRIBUTION_ADDRESS: `127.0.0.1:${notes.port}`,
      LEADFLOW_LOG_FORMAT: 'json',
      REDIS_URL: '',
    });
    try {
      const base = `http://127.0.0.1:${httpPort}`;
      await waitForProcess('the gateway', gateway, () =>
        fetch(`${base}/health/live`).then(
          (r) => r.ok,
          () => false,
        ),
      );
      const calls = notes.calls();
      await fetch(`${base}/api/intake/${testKey('grpc-logging')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(validLeadBody()),
      });
      await waitUntil('a call to the distribution service', () => notes.calls() > calls);
    } finally {
      await stopProcess(gateway, 10_000);
    }
    expect(gateway.output.join('')).not.to.include(SSN);
    expect(jsonLines(gateway.stderr, 'stderr')).to.deep.equal([]);
    expect(droppedHeaders(jsonLines(gateway.stdout, 'stdout'))).to.include('x-note');
  });

  it('leadflow command: an answer header it cannot hold is named on stderr, never its value', async () => {
    const cli = startProcess(
      'services/cli/src/main.ts',
      {
        LEADFLOW_ADMIN_ADDRESS: `127.0.0.1:${notes.port}`,
        LEADFLOW_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
      },
      { args: ['publisher', 'list'] },
    );
    await cli.ended;
    const stderr = cli.stderr.join('');
    expect(stderr).not.to.include(SSN);
    expect(stderr).to.match(/x-note/);
  });
});
