export type { RateLimitDecision, RateLimiter } from './rate-limiter.js';
export { createRateLimiter, type CreateRateLimiterOptions } from './create-rate-limiter.js';
export { rateLimitHeaders, type RateLimitHeaders } from './headers.js';
export type { RateLimitLogger } from './fallback-rate-limiter.js';
export { DEFAULT_WINDOW_SECONDS } from './rolling-window.js';
