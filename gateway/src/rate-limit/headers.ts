import type { RateLimitDecision } from './rate-limiter.js';

/** A type alias, not an interface, so it fits header maps with an index signature (reply.headers). */
export type RateLimitHeaders = {
  'RateLimit-Policy': string;
  RateLimit: string;
  'Retry-After'?: string;
};

const POLICY = '"default"';

/**
 * Response headers per draft-ietf-httpapi-ratelimit-headers (-08 onwards, current as of -11),
 * both fields Structured Field Lists whose items are the policy name as an sf-string:
 *   RateLimit-Policy: "default";q=60;w=60   q = quota (requests), w = window in seconds
 *   RateLimit: "default";r=59;t=0           r = available quota, t = seconds until it grows
 * t is the decision's resetSeconds: 0 while requests remain, else the wait for a free slot, which
 * is also Retry-After (delay-seconds, RFC 9110 section 10.2.3), sent only on a denial.
 */
export function rateLimitHeaders(decision: RateLimitDecision): RateLimitHeaders {
  const headers: RateLimitHeaders = {
    'RateLimit-Policy': `${POLICY};q=${decision.limit};w=${decision.windowSeconds}`,
    RateLimit: `${POLICY};r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.allowed) headers['Retry-After'] = String(decision.resetSeconds);
  return headers;
}
