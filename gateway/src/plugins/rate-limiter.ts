import fp from 'fastify-plugin';
import { createRateLimiter, type RateLimiter } from '../rate-limit/index.js';

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

export const rateLimiter = fp<RateLimiterPluginOptions>(
  async (app, options) => {
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
  },
  { name: 'rate-limiter', dependencies: ['metrics'] },
);
