import type { IncomingMessage } from 'node:http';

const MAX_BODY_BYTES = 1024 * 1024;

export type RequestFields = Record<string, unknown>;

/** A body the simulator will not read; `status` is the HTTP answer. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

export async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, `body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A lead as buyers receive it: a JSON object or an urlencoded form, chosen by Content-Type. */
export async function readFields(request: IncomingMessage): Promise<RequestFields> {
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const isJson = mediaType === 'application/json' || mediaType.endsWith('+json');
  if (!isJson && mediaType !== 'application/x-www-form-urlencoded') {
    throw new BodyError(415, 'expected application/json or application/x-www-form-urlencoded');
  }
  const text = await readText(request);
  if (!isJson) return Object.fromEntries(new URLSearchParams(text));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BodyError(400, 'body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BodyError(400, 'body must be a JSON object');
  return body as RequestFields;
}
