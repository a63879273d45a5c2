import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify';

/**
 * Lets a plugin's decorations and hooks apply to the instance that registers it
 * instead of staying in the plugin's own encapsulated context: the documented
 * `skip-override` flag that fastify-plugin sets.
 */
export function shared<Options extends FastifyPluginOptions>(
  name: string,
  plugin: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  return Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: name,
  });
}
