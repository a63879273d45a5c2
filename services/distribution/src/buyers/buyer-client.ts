import type { BuyerAttemptOutcome } from '../db/schema.js';

/** A buyer's reply is read up to this size; anything longer is an error. */
export const MAX_REPLY_BYTES = 64 * 1024;

export interface BuyerReply {
  outcome: BuyerAttemptOutcome;
  httpStatus: number | null;
  reason: string;
  redirectUrl: string;
}

async function readCapped(response: Response): Promise<string | undefined> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > MAX_REPLY_BYTES) {
      await response.body.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseReply(status: number, text: string): BuyerReply {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: 'error', httpStatus: status, reason: 'reply is not JSON', redirectUrl: '' };
  }
  if (typeof body !== 'object' || body === null || typeof (body as { accepted?: unknown }).accepted !== 'boolean') {
    return { outcome: 'error', httpStatus: status, reason: 'reply has no accepted flag', redirectUrl: '' };
  }
  const reply = body as { accepted: boolean; reason?: unknown; redirectUrl?: unknown };
  const reason = typeof reply.reason === 'string' ? reply.reason.slice(0, 500) : '';
  const redirectUrl = typeof reply.redirectUrl === 'string' && /^https?:\/\//.test(reply.redirectUrl) ? reply.redirectUrl : '';
  return { outcome: reply.accepted ? 'accepted' : 'rejected', httpStatus: status, reason, redirectUrl };
}

/**
 * Posts a lead as JSON and reads the buyer's verdict: a 2xx JSON reply
 * `{"accepted": boolean, "reason"?: string, "redirectUrl"?: string}`. A non-2xx
 * status, an unparseable or oversized reply, a network error or the timeout is
 * never a sale.
 */
export async function postLeadToBuyer(url: string, payload: unknown, timeoutMs: number): Promise<BuyerReply> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    return failure(error, null);
  }
  try {
    const text = await readCapped(response);
    if (text === undefined) return { outcome: 'error', httpStatus: response.status, reason: 'reply too large', redirectUrl: '' };
    if (response.status < 200 || response.status > 299) {
      return { outcome: 'error', httpStatus: response.status, reason: `HTTP ${response.status}`, redirectUrl: '' };
    }
    return parseReply(response.status, text);
  } catch (error) {
    return failure(error, response.status);
  }
}

function failure(error: unknown, httpStatus: number | null): BuyerReply {
  const name = (error as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { outcome: 'timeout', httpStatus, reason: 'no reply in time', redirectUrl: '' };
  }
  return { outcome: 'error', httpStatus, reason: 'connection failed', redirectUrl: '' };
}
