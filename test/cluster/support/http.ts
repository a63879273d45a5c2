import { request } from 'node:http';

/** One answer of the intake endpoint as the test saw it; `status` 0 when no HTTP answer came. */
export interface IntakeReply {
  status: number;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON, read by each test in its own shape
  body: any;
  headers: Record<string, string | string[] | undefined>;
  elapsedMs: number;
  /** Network-level failure: ECONNREFUSED, ECONNRESET, or CLIENT_TIMEOUT when no answer came in time. */
  error?: string;
  /** When the answer (or the failure) arrived, epoch ms. */
  at: number;
}

/**
 * POSTs one lead on a connection of its own (no keep-alive pool), so that a
 * request made while a gateway closes is a new connection, and the outcome
 * (answer, refused, reset, no answer in time) is told apart exactly.
 */
export function postLead(baseUrl: string, key: string, body: unknown, timeoutMs = 30_000): Promise<IntakeReply> {
  const payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const url = new URL(`/api/intake/${key}`, baseUrl);
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (reply: Omit<IntakeReply, 'elapsedMs' | 'at'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...reply, elapsedMs: Math.round(performance.now() - started), at: Date.now() });
    };
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': payload.length, connection: 'close' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error: NodeJS.ErrnoException) =>
          finish({ status: 0, body: undefined, headers: {}, error: error.code ?? error.message }),
        );
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // keep the text: an answer that is not JSON is itself a finding
          }
          finish({ status: response.statusCode ?? 0, body: parsed, headers: response.headers });
        });
      },
    );
    const timer = setTimeout(() => {
      finish({ status: 0, body: undefined, headers: {}, error: 'CLIENT_TIMEOUT' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: 0, body: undefined, headers: {}, error: error.code ?? error.message }),
    );
    req.end(payload);
  });
}

/** Runs `task` for every item with at most `concurrency` running at once; results in item order. */
export async function inPool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** `{200: 57, 503: 3}` */
export function countBy<T>(items: readonly T[], key: (item: T) => string | number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const name = String(key(item));
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

export function describeReply(reply: IntakeReply): string {
  return reply.error
    ? `${reply.error} after ${reply.elapsedMs} ms`
    : `${reply.status} ${JSON.stringify(reply.body)} after ${reply.elapsedMs} ms`;
}
