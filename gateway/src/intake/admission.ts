import { isWellFormedPublisherKey } from '@leadflow/core/publisher-key-format';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeCallFailure } from '../distribution/grpc-errors.js';
import { GatewayError } from '../errors.js';
import { hashKey, type Publisher, type PublisherKeys } from '../keys/publisher-keys.js';
import { type RateLimiter, rateLimitHeaders } from '../rate-limit/index.js';
import type { AuthFailures } from './auth-failures.js';
import { clientAddressGroup } from './client-address.js';

export interface IntakeParams {
  webmasterKey: string;
}

/** Which limit refused a request: a publisher's, or a client address's failed authentications. */
export type RefusingLimit = 'key' | 'auth_failures';

const AUTH_FAILURES_POLICY = 'auth-failures';

export interface AdmissionOptions {
  keys: PublisherKeys;
  rateLimiter: RateLimiter;
  authFailures: AuthFailures;
  defaultRateLimitPerMinute: number;
  /** Called for every request refused with 429; feed a metric with it. */
  onRefused?: (limit: RefusingLimit) => void;
}

/**
 * Runs on onRequest, before the body is read. A key of the wrong shape is refused without a look-up; a
 * key that resolves to no publisher counts as a failed authentication of the client's address, and an
 * address over its allowance is refused (429) before its keys are looked up at all, except for a key
 * this gateway already knows to be live. A publisher's requests count against its limit, however
 * malformed; its keys share one bucket, so two live keys during rotation do not double it.
 */
export function admission(options: AdmissionOptions) {
  const { keys, rateLimiter, authFailures } = options;
  const onRefused = options.onRefused ?? (() => {});

  async function resolve(webmasterKey: string, keyHash: string, request: FastifyRequest): Promise<Publisher | null> {
    if (!isWellFormedPublisherKey(webmasterKey)) return null;
    return keys.lookup(webmasterKey, keyHash, request.telemetry.context).catch((error: unknown) => {
      throw GatewayError.serviceUnavailable(`key resolution failed: ${describeCallFailure(error)}`);
    });
  }

  /** For a locked-out address: the publisher of a key known live, without a look-up; otherwise refused. */
  async function knownPublisher(
    webmasterKey: string,
    keyHash: string,
    lockedOutSeconds: number,
    reply: FastifyReply,
  ): Promise<Publisher> {
    const known = isWellFormedPublisherKey(webmasterKey) ? keys.known(keyHash) : undefined;
    const publisher = known ? await known.catch(() => null) : null;
    if (publisher) return publisher;
    const { limit, windowSeconds } = authFailures;
    reply.headers(
      rateLimitHeaders(
        { allowed: false, limit, remaining: 0, resetSeconds: lockedOutSeconds, windowSeconds },
        AUTH_FAILURES_POLICY,
      ),
    );
    onRefused('auth_failures');
    throw GatewayError.rateLimited(lockedOutSeconds);
  }

  return async function admit(request: FastifyRequest<{ Params: IntakeParams }>, reply: FastifyReply): Promise<void> {
    const { webmasterKey } = request.params;
    const keyHash = hashKey(webmasterKey);
    // A socket already gone has no address; such a request is answered to no one anyway.
    const address = clientAddressGroup(request.ip ?? 'unknown');
    const lockedOutSeconds = authFailures.lockedOutSeconds(address);
    const publisher =
      lockedOutSeconds > 0
        ? await knownPublisher(webmasterKey, keyHash, lockedOutSeconds, reply)
        : await resolve(webmasterKey, keyHash, request);

    if (!publisher) {
      const failures = await authFailures.record(address);
      reply.headers(rateLimitHeaders(failures, AUTH_FAILURES_POLICY));
      if (!failures.allowed) {
        onRefused('auth_failures');
        throw GatewayError.rateLimited(failures.resetSeconds);
      }
      throw GatewayError.of('UNAUTHORIZED');
    }

    const limit = publisher.rateLimitPerMinute > 0 ? publisher.rateLimitPerMinute : options.defaultRateLimitPerMinute;
    const decision = await rateLimiter.consume(`pub:${publisher.id}`, limit);
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) {
      onRefused('key');
      throw GatewayError.rateLimited(decision.resetSeconds);
    }
  };
}
