import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What one request got: an answer, or the client's error (a reset, a broken pipe, a timeout). */
export type ClientResult = { status: number; body: string } | { error: string };

/** One file POSTed to one URL `count` times, `concurrency` at a time, each on a connection of its own. */
export interface Batch {
  url: string;
  contentType: string;
  /** The body, and the same bytes as a file for the clients that read one. */
  body: string;
  bodyFile: string;
  count: number;
  concurrency: number;
}

/** A real HTTP client as publishers use them, run the way a publisher's code would run it. */
export interface RealClient {
  name: string;
  post(batch: Batch): Promise<ClientResult[]>;
}

/** Long enough for a 2 MB body over a slow link on a loaded machine; short enough to bound a test. */
const REQUEST_TIMEOUT_S = 30;
/** Only the standard library is used: Debian's python3, or LEADFLOW_TEST_PYTHON. */
const PYTHON = process.env.LEADFLOW_TEST_PYTHON || '/usr/bin/python3';
const PYTHON_SCRIPT = fileURLToPath(new URL('./post_with_http_client.py', import.meta.url));

async function pool<T>(count: number, concurrency: number, task: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      started += 1;
      results.push(await task());
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

function run(command: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr: stderr || (error?.message ?? '') });
    });
  });
}

/** Node's fetch (undici), in this process. */
export const nodeFetch: RealClient = {
  name: 'fetch',
  post: (batch) =>
    pool(batch.count, batch.concurrency, async () => {
      try {
        const response = await fetch(batch.url, {
          method: 'POST',
          headers: { 'content-type': batch.contentType },
          body: batch.body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_S * 1000),
        });
        return { status: response.status, body: await response.text() };
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        return { error: cause?.code ?? cause?.message ?? (error as Error).message };
      }
    }),
};

/**
 * curl without `Expect: 100-continue`, so that the body goes out at once after the headers instead of
 * waiting for the server's go-ahead (which curl asks for by default above 1 MB).
 */
export const curl: RealClient = {
  name: 'curl',
  post: (batch) =>
    pool(batch.count, batch.concurrency, async () => {
      const { code, stdout, stderr } = await run('curl', [
        '--silent',
        '--show-error',
        '--max-time',
        String(REQUEST_TIMEOUT_S),
        '--header',
        'Expect:',
        '--header',
        `Content-Type: ${batch.contentType}`,
        '--data-binary',
        `@${batch.bodyFile}`,
        '--write-out',
        '\n%{http_code}',
        batch.url,
      ]);
      if (code !== 0) return { error: `exit ${code}: ${stderr.trim()}` };
      const split = stdout.lastIndexOf('\n');
      return { status: Number(stdout.slice(split + 1)), body: stdout.slice(0, split) };
    }),
};

/** Python's http.client in one process, a thread per request in flight. */
export const python: RealClient = {
  name: 'python',
  post: async (batch) => {
    const { code, stdout, stderr } = await run(PYTHON, [
      PYTHON_SCRIPT,
      batch.url,
      batch.contentType,
      batch.bodyFile,
      String(batch.count),
      String(batch.concurrency),
    ]);
    if (code !== 0) throw new Error(`${PYTHON} ${PYTHON_SCRIPT} failed (${code}): ${stderr}`);
    return stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ClientResult);
  },
};
