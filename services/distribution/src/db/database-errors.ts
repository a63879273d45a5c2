import { ConfigError } from '@leadflow/service-kit/config';
import type * as Mysql2Promise from 'mysql2/promise';
import type { Connection as MysqlConnection } from 'mysql2/promise';
import { lazyModule } from '../lazy-module.js';

/** Loaded only to explain a MySQL failure. */
const mysql2Promise = lazyModule<typeof Mysql2Promise>('mysql2/promise');

/** The driver's code of an error or of any error it wraps (a failed migration wraps the driver's). */
function driverCode(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** What DATABASE_URL names, without its password. */
function target(databaseUrl: string): { host: string; port: string; user: string; database: string } {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: url.port || '3306',
    user: decodeURIComponent(url.username) || '(none)',
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
  };
}

/** What the service's user needs on its database: the migrations' DDL besides reading and writing. */
const SERVICE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'CREATE', 'ALTER', 'INDEX', 'DROP', 'REFERENCES'];

/** The account the server matched DATABASE_URL's user to, and whether it holds the service's privileges everywhere. */
interface ServerAccount {
  /** As GRANT names it: 'user'@'host'. */
  grantee: string;
  holdsEverywhere: boolean;
}

/**
 * Asks the server, over a connection to no database, which account DATABASE_URL's user is (a user
 * exists per host: root is 'root'@'localhost' on a stock MariaDB, not 'root'@'%') and what it holds on
 * every database. Undefined when the server will not say: the advice then names no account.
 */
async function serverAccount(databaseUrl: string): Promise<ServerAccount | undefined> {
  const url = new URL(databaseUrl);
  url.pathname = '';
  let connection: MysqlConnection | undefined;
  try {
    connection = await mysql2Promise().createConnection({ uri: url.toString(), connectTimeout: 5000 });
    const [[current]] = (await connection.query('SELECT CURRENT_USER() AS account')) as unknown as [
      [{ account: string }],
    ];
    const at = current.account.lastIndexOf('@');
    const grantee = `'${current.account.slice(0, at)}'@'${current.account.slice(at + 1)}'`;
    const [rows] = (await connection.query(
      'SELECT PRIVILEGE_TYPE AS privilege FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?',
      [grantee],
    )) as unknown as [{ privilege: string }[]];
    const held = new Set(rows.map((row) => row.privilege));
    return { grantee, holdsEverywhere: SERVICE_PRIVILEGES.every((privilege) => held.has(privilege)) };
  } catch {
    return undefined; // The advice is the same, less the account's name: the start's own error is what matters.
  } finally {
    // A question's connection: its answer is in, nothing is lost if it does not close cleanly.
    await connection?.end().catch(() => undefined);
  }
}

/** The statements given, as `user` runs them with the mysql client (backquotes escaped for the shell's double quotes). */
const mysqlCommand = (host: string, port: string, user: string, statements: string[]): string =>
  `mysql -h ${host} -P ${port} -u ${user} -p -e "${statements.join('; ').replaceAll('`', '\\`')}"`;

const grantOn = (database: string, account: ServerAccount | undefined): string =>
  `GRANT ${SERVICE_PRIVILEGES.join(', ')} ON \`${database}\`.* TO ${account?.grantee ?? '<the account SELECT CURRENT_USER() names>'}`;

/**
 * What makes `database` the user's: created (when `create`) and granted by an administrator, or created
 * by the user itself when it holds the service's privileges on every database already.
 */
function databaseAdvice(
  target: { host: string; port: string; user: string; database: string },
  account: ServerAccount | undefined,
  create: 'CREATE DATABASE' | 'CREATE DATABASE IF NOT EXISTS' | undefined,
): string {
  const { host, port, user, database } = target;
  const creation = create ? [`${create} \`${database}\` CHARACTER SET utf8mb4`] : [];
  const asUser = account?.holdsEverywhere && creation.length > 0;
  const command = asUser
    ? `as ${user}: ${mysqlCommand(host, port, user, creation)}`
    : `as a MySQL administrator: ${mysqlCommand(host, port, 'root', [...creation, grantOn(database, account)])}`;
  return create ? `${command} (the service creates its tables itself)` : command;
}

/**
 * A MySQL failure at start told as what to do about it: a database that does not exist, a user refused,
 * a server not reachable. Undefined for anything else (or on SQLite). Never quotes the password.
 */
export async function storageStartFailure(
  error: unknown,
  databaseUrl: string | undefined,
): Promise<ConfigError | undefined> {
  if (!databaseUrl) return undefined;
  const code = driverCode(error);
  const place = target(databaseUrl);
  const { host, port, user, database } = place;
  const at = `${host}:${port}`;
  const why = `(DATABASE_URL, ${code})`;
  switch (code) {
    case 'ER_BAD_DB_ERROR':
      return new ConfigError(
        `the database "${database}" does not exist on the MySQL server at ${at} ${why}: create it once, ${databaseAdvice(place, await serverAccount(databaseUrl), 'CREATE DATABASE')}`,
      );
    case 'ER_NO_DB_ERROR':
      return new ConfigError(
        `DATABASE_URL names no database ${why}: end it with /DATABASE_NAME, e.g. mysql://${user}:PASSWORD@${at}/leadflow`,
      );
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      return new ConfigError(
        `the MySQL server at ${at} refused user "${user}" ${why}: check the user and password in DATABASE_URL, and that the user may connect from this host`,
      );
    // The server tells a user with no access to a database that, whether the database exists or not.
    case 'ER_DBACCESS_DENIED_ERROR':
      return new ConfigError(
        `user "${user}" may not use the database "${database}" on the MySQL server at ${at}, or it does not exist ${why}: ${databaseAdvice(place, await serverAccount(databaseUrl), 'CREATE DATABASE IF NOT EXISTS')}`,
      );
    case 'ER_TABLEACCESS_DENIED_ERROR':
      return new ConfigError(
        `user "${user}" may not use the database "${database}" on the MySQL server at ${at} ${why}: ${databaseAdvice(place, await serverAccount(databaseUrl), undefined)}`,
      );
    case 'ECONNREFUSED':
      return new ConfigError(`nothing accepts connections at ${at} ${why}: is MySQL running there, on that port?`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`the host "${host}" does not resolve ${why}: check its spelling and DNS`);
    case 'ETIMEDOUT':
      return new ConfigError(
        `the MySQL server at ${at} did not answer in time ${why}: check the host, the port and any firewall between`,
      );
    default:
      return undefined;
  }
}
