import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';

/**
 * Runs work with a fresh MySQL database on the server of databaseUrl, dropped afterwards: every scenario
 * starts from empty tables. Its name is the URL's database name (or leadflow_bench) plus a random suffix.
 */
export async function withScratchDatabase<T>(databaseUrl: string, work: (url: string) => Promise<T>): Promise<T> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'leadflow_bench'}_${randomBytes(4).toString('hex')}`;
  if (!/^\w+$/.test(name)) throw new Error(`DATABASE_URL names a database the bench cannot derive a name from`);
  url.pathname = '/';
  const connection = await createConnection({ uri: url.toString() });
  try {
    await connection.query(`CREATE DATABASE \`${name}\``);
    try {
      url.pathname = `/${name}`;
      return await work(url.toString());
    } finally {
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    }
  } finally {
    await connection.end();
  }
}
