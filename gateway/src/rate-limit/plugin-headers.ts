import type { FastifyReply, FastifyRequest } from 'fastify';
import { policyHeaders } from './headers.js';

/** What @fastify/rate-limit writes with `enableDraftSpec`: three numbers, from the draft's early versions. */
const LIMIT = 'ratelimit-limit';
const REMAINING = 'ratelimit-remaining';
const RESET = 'ratelimit-reset';

/**
 * An onSend hook for a route that @fastify/rate-limit limits: folds the plugin's `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` into the two fields the API documents, `RateLimit-Policy`
 * and `RateLimit` (see headers.ts). The plugin writes only those three or `X-RateLimit-*`, under fixed
 * names, and its callbacks are not given the count, so its own figures are read back from its headers.
 * An answer the plugin did not limit (refused before it ran) carries none and is left as it is.
 */
export function foldPluginHeaders(windowSeconds: number) {
  return (
    _request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload: unknown) => void,
  ): void => {
    const limit = reply.getHeader(LIMIT);
    if (limit !== undefined) {
      const quota = {
        limit: Number(limit),
        remaining: Number(reply.getHeader(REMAINING)),
        resetSeconds: Number(reply.getHeader(RESET)),
        windowSeconds,
      };
      reply.removeHeader(LIMIT).removeHeader(REMAINING).removeHeader(RESET).headers(policyHeaders(quota));
    }
    done(null, payload);
  };
}
