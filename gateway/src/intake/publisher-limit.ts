import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Publisher } from '../keys/publisher-keys.js';

export interface PublisherLimitOptions {
  /** The limit of a publisher that has none of its own (rateLimitPerMinute 0). */
  defaultRateLimitPerMinute: number;
  /** Called for every request refused with 429 by its publisher's limit; feed a metric with it. */
  onExceeded: () => void;
}

function admitted(request: FastifyRequest): Publisher {
  if (!request.publisher) throw new Error("a publisher's rate limit must run after admission");
  return request.publisher;
}

/**
 * A route's @fastify/rate-limit configuration (`config.rateLimit`) that limits each publisher. The plugin
 * adds its hook after the route's own onRequest hooks, so it runs once admission has found the publisher,
 * before the body is read: every request with a live key counts, however malformed. A publisher's keys
 * share one bucket, so two live keys during a rotation do not double its limit.
 */
export function publisherLimit(options: PublisherLimitOptions): RateLimitOptions {
  return {
    hook: 'onRequest',
    keyGenerator: (request) => `pub:${admitted(request).id}`,
    max: (request) => {
      const { rateLimitPerMinute } = admitted(request);
      return rateLimitPerMinute > 0 ? rateLimitPerMinute : options.defaultRateLimitPerMinute;
    },
    onExceeded: options.onExceeded,
  };
}
