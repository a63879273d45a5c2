export { type CreateRateLimiterOptions, createRateLimiter } from './create-rate-limiter.js';
export { type RateLimitHeaders, rateLimitHeaders } from './headers.js';
export type { RateLimitDecision, RateLimiter } from './rate-limiter.js';
