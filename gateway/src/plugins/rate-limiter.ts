import fastifyRateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { GatewayError } from '../errors.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/index.js';
import { rollingWindowStore } from '../rate-limit/rolling-window-store.js';

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

/**
 * Decorates the gateway with its rolling-window limiter (shared through Redis when configured, with each
 * gateway's own count as fallback), and registers @fastify/rate-limit counting in it for the routes that
 * ask for it in `config.rateLimit`, with their own key and limit.
 */
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
    await app.register(fastifyRateLimit, {
      global: false,
      store: rollingWindowStore(limiter),
      timeWindow: limiter.windowSeconds * 1000,
      // RateLimit-Limit/-Remaining/-Reset, which the route's onSend folds into the documented fields.
      enableDraftSpec: true,
      // The error handler writes Retry-After, from the error below, as for every 429 and 503.
      addHeaders: { 'retry-after': false },
      errorResponseBuilder: (_request, context) => GatewayError.rateLimited(context.ttl / 1000),
    });
  },
  { name: 'rate-limiter', dependencies: ['metrics'] },
);
