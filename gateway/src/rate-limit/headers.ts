import type { RateLimitDecision } from './rate-limiter.js';

/** A type alias, not an interface, so it fits header maps with an index signature (reply.headers). */
export type RateLimitHeaders = {
  'RateLimit-Policy': string;
  RateLimit: string;
  'Retry-After'?: string;
};

/** The per-key limit's policy name; other limits name theirs. */
const DEFAULT_POLICY = 'default';

/**
 * Response headers per draft-ietf-httpapi-ratelimit-headers (the two-field form of -08 onwards,
 * unchanged through -11): each field is a Structured Field List whose item is the policy name as
 * an sf-string, with parameters:
 *   RateLimit-Policy: "default";q=60;w=60   q = quota in requests, w = window in seconds
 *   RateLimit: "default";r=59;t=0           r = requests left, t = resetSeconds
 * t is 0 while requests are left and otherwise the seconds until a slot frees; on a denial the same
 * figure goes out as Retry-After (delay-seconds, RFC 9110 section 10.2.3).
 */
export function rateLimitHeaders(decision: RateLimitDecision, policyName = DEFAULT_POLICY): RateLimitHeaders {
  const headers: RateLimitHeaders = policyHeaders(decision, policyName);
  if (!decision.allowed) headers['Retry-After'] = String(decision.resetSeconds);
  return headers;
}

/** The two fields alone, for an answer whose Retry-After is written elsewhere. */
export function policyHeaders(
  quota: Omit<RateLimitDecision, 'allowed'>,
  policyName = DEFAULT_POLICY,
): Omit<RateLimitHeaders, 'Retry-After'> {
  const policy = `"${policyName}"`;
  return {
    'RateLimit-Policy': `${policy};q=${quota.limit};w=${quota.windowSeconds}`,
    RateLimit: `${policy};r=${quota.remaining};t=${quota.resetSeconds}`,
  };
}
