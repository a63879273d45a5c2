import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeCallFailure } from '../distribution/grpc-errors.js';
import { GatewayError } from '../errors.js';
import { hashKey, type PublisherKeys } from '../keys/publisher-keys.js';
import { rateLimitHeaders, type RateLimiter } from '../rate-limit/index.js';

export interface IntakeParams {
  webmasterKey: string;
}

export interface AdmissionOptions {
  keys: PublisherKeys;
  rateLimiter: RateLimiter;
  defaultRateLimitPerMinute: number;
}

/**
 * Runs on onRequest, before the body is read, so that every request counts
 * against the limit, however malformed. A publisher's keys share one bucket
 * (two live keys during rotation do not double the limit); an unknown key gets
 * a bucket of its own, named by its hash. Over the limit: 429; unknown key: 401.
 */
export function admission(options: AdmissionOptions) {
  return async function admit(request: FastifyRequest<{ Params: IntakeParams }>, reply: FastifyReply): Promise<void> {
    const { webmasterKey } = request.params;
    const keyHash = hashKey(webmasterKey);
    const publisher = await options.keys.lookup(webmasterKey, keyHash, request.telemetry.context).catch((error: unknown) => {
      throw GatewayError.serviceUnavailable(`key resolution failed: ${describeCallFailure(error)}`);
    });
    const decision = publisher
      ? await options.rateLimiter.consume(
          `pub:${publisher.id}`,
          publisher.rateLimitPerMinute > 0 ? publisher.rateLimitPerMinute : options.defaultRateLimitPerMinute,
        )
      : await options.rateLimiter.consume(`key:${keyHash}`, options.defaultRateLimitPerMinute);
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) throw GatewayError.rateLimited(decision.resetSeconds);
    if (!publisher) throw GatewayError.of('UNAUTHORIZED');
  };
}
