import type { FastifyInstance, FastifyReply, HTTPMethods } from 'fastify';
import { GatewayError } from '../errors.js';

/**
 * Answers every other method Fastify routes on `url` 405, with the methods the path takes in `Allow`: on
 * onRequest, before its key is looked at or its body read (a body would otherwise be parsed, and could be
 * answered 413 or 415 instead).
 */
export function refuseOtherMethods(app: FastifyInstance, url: string, allowed: readonly HTTPMethods[]): void {
  const allow = allowed.join(', ');
  const refuse = async (_request: unknown, reply: FastifyReply): Promise<never> => {
    reply.header('allow', allow);
    throw GatewayError.of('METHOD_NOT_ALLOWED');
  };
  app.route({
    method: app.supportedMethods.filter((method) => !allowed.includes(method)),
    url,
    onRequest: refuse,
    // Never reached past onRequest; Fastify wants a handler for every route.
    handler: refuse,
  });
}
