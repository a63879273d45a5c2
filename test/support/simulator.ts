import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { type EndpointConfig, type Simulator, startSimulator } from '@leadflow/simulator';

export const SEED = 1234;

/** A lead as a buyer's post would carry it. */
export const LEAD = {
  leadId: 'lead-0001',
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'jane.doe@example.com',
  ssn: '123-45-6789',
  state: 'TX',
  zip: '75001',
  loanAmount: '1500.00',
};

/** What a ping may carry. */
export const PING = { leadId: 'lead-0001', state: 'TX', zip: '75001', loanAmount: '1500.00', age: 34 };

export interface Reply {
  status: number;
  contentType: string;
  text: string;
  headers: Headers;
}

export async function send(
  simulator: Simulator,
  path: string,
  body: Record<string, unknown>,
  options: { form?: boolean; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(simulator.url + path, {
    method: 'POST',
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      ...options.headers,
    },
    body: options.form
      ? new URLSearchParams(Object.entries(body).map(([key, value]) => [key, String(value)])).toString()
      : JSON.stringify(body),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
    headers: response.headers,
  };
}

export async function sendJson(
  simulator: Simulator,
  path: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const reply = await send(simulator, path, body);
  return JSON.parse(reply.text) as Record<string, unknown>;
}

export interface RawReply {
  status: number | undefined;
  headers: IncomingHttpHeaders;
  /** Whatever arrived before the end or the failure. */
  body: Buffer;
  /** The client-side error code when the exchange failed (ECONNRESET, TIMEOUT, ...). */
  error: string | undefined;
}

/** One request on its own connection, reporting how it ended instead of throwing, like a buyer client must. */
export function rawPost(url: string, body: unknown, timeoutMs = 2000): Promise<RawReply> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status: number | undefined;
    let headers: IncomingHttpHeaders = {};
    let settled = false;
    const finish = (error: string | undefined) => {
      if (settled) return;
      settled = true;
      resolve({ status, headers, body: Buffer.concat(chunks), error });
    };
    const request = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (response) => {
        status = response.statusCode;
        headers = response.headers;
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => finish(undefined));
        response.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
      },
    );
    request.setTimeout(timeoutMs, () =>
      request.destroy(Object.assign(new Error('client timeout'), { code: 'TIMEOUT' })),
    );
    request.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    // After the response's own error, which may come a tick later.
    request.on('close', () => setImmediate(() => finish('CLOSED')));
    request.end(JSON.stringify(body));
  });
}

/** Starts a seeded simulator for a suite and closes it after; `current()` is the running one. */
export function useSimulator(endpoints: EndpointConfig[]): () => Simulator {
  let simulator: Simulator | undefined;
  beforeEach(async () => {
    simulator = await startSimulator({ endpoints, seed: SEED });
  });
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });
  return () => {
    if (!simulator) throw new Error('simulator not started');
    return simulator;
  };
}
