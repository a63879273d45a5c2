export type { RateLimitDecision, RateLimiter } from './rate-limiter.js';
export { createRateLimiter, type CreateRateLimiterOptions } from './create-rate-limiter.js';
export { rateLimitHeaders, type RateLimitHeaders } from './headers.js';
