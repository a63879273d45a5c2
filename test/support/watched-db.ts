import type { Db } from '@leadflow/distribution/src/db/database';
import type { CompiledQuery } from 'kysely';

/** The database `db`, telling the SQL of each query it is given to run to `sent`, in order. */
export function watchedDb(db: Db, sent: string[]): Db {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'executeQuery')
        return (query: CompiledQuery) => {
          sent.push(query.sql);
          return target.executeQuery(query);
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
