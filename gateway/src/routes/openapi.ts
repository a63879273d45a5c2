import type { FastifyPluginAsync } from 'fastify';
import { intakeOpenApiDocument } from '../openapi/intake-document.js';

/** The OpenAPI 3.1 document of the public endpoint, as JSON (the service offers no HTML pages). */
export const openApiRoutes: FastifyPluginAsync<{ defaultRateLimitPerMinute: number }> = async (app, options) => {
  const document = JSON.stringify(intakeOpenApiDocument(options.defaultRateLimitPerMinute));
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
};
