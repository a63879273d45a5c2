import { createRateLimiter, type RateLimiter } from '../rate-limit/index.js';
import { shared } from './shared.js';

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
  }
}

export interface RateLimiterPluginOptions {
  redisUrl: string | undefined;
  /** A limiter owned by the caller; when absent, one is created and closed with the app. */
  rateLimiter?: RateLimiter | undefined;
}

/** Needs the metrics plugin registered first. */
export const rateLimiter = shared<RateLimiterPluginOptions>('rate-limiter', async (app, options) => {
  const { metrics } = app;
  const limiter =
    options.rateLimiter ??
    createRateLimiter({
      redisUrl: options.redisUrl,
      logger: app.log,
      onFallback: () => metrics.rateLimiterFallbacks.inc(),
    });
  app.decorate('rateLimiter', limiter);
  if (!options.rateLimiter) {
    app.addHook('onClose', () => limiter.close());
  }
});
