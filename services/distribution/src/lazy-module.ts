import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A dependency loaded on its first use, for those only some setups need (mysql2 on MySQL, xmldom for
 * XML buyers, re2js for patterns, yaml for files): loaded at start, their code and data would be part of
 * every service's resident memory. Each has a CommonJS entry, so it loads synchronously.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
