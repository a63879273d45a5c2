import { isWellFormedPublisherKey } from '@leadflow/core/publisher-key-format';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeCallFailure } from '../distribution/grpc-errors.js';
import { GatewayError } from '../errors.js';
import { hashKey, type Publisher, type PublisherKeys } from '../keys/publisher-keys.js';
import { rateLimitHeaders } from '../rate-limit/index.js';
import type { AuthFailures } from './auth-failures.js';
import { clientAddressGroup } from './client-address.js';

export interface IntakeParams {
  webmasterKey: string;
}

const AUTH_FAILURES_POLICY = 'auth-failures';

declare module 'fastify' {
  interface FastifyRequest {
    /** The publisher whose key the request carries, once admission has found it live. */
    publisher: Publisher | null;
  }
}

export interface AdmissionOptions {
  keys: PublisherKeys;
  authFailures: AuthFailures;
  /** Called for every request refused with 429 for its address's failed authentications; feed a metric with it. */
  onLockedOut?: () => void;
}

/**
 * Runs on onRequest, before the body is read, and before the publisher's rate limit (publisher-limit.ts),
 * which counts only requests it lets through. A key of the wrong shape is refused without a look-up; a key
 * that resolves to no publisher counts as a failed authentication of the client's address, and an address
 * over its allowance is refused (429) before its keys are looked up at all, except for a key this gateway
 * already knows to be live.
 *
 * Ours, not @fastify/rate-limit's: its route hook counts every request, and this limit counts only failed
 * authentications, known only after the look-up. Its manual limiter could count those, but learning
 * whether an address is locked out would then cost a peek at Redis on every request; the lockout is
 * remembered in memory instead (auth-failures.ts).
 */
export function admission(options: AdmissionOptions) {
  const { keys, authFailures } = options;
  const onLockedOut = options.onLockedOut ?? (() => {});

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
    // A look-up that fails leaves the key unproven: a locked-out address is refused, as for an unknown key.
    const publisher = known ? await known.catch(() => null) : null;
    if (publisher) return publisher;
    const { limit, windowSeconds } = authFailures;
    reply.headers(
      rateLimitHeaders(
        { allowed: false, limit, remaining: 0, resetSeconds: lockedOutSeconds, windowSeconds },
        AUTH_FAILURES_POLICY,
      ),
    );
    onLockedOut();
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
        onLockedOut();
        throw GatewayError.rateLimited(failures.resetSeconds);
      }
      throw GatewayError.of('UNAUTHORIZED');
    }
    request.publisher = publisher;
  };
}
