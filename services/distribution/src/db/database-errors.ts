import { ConfigError } from '@leadflow/service-kit/config';

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

const CREATE_ADVICE = (database: string, user: string, host: string, port: string) =>
  `create it once, as a MySQL administrator: mysql -h ${host} -P ${port} -u root -p -e ` +
  `"CREATE DATABASE \\\`${database}\\\` CHARACTER SET utf8mb4; GRANT ALL PRIVILEGES ON \\\`${database}\\\`.* TO '${user}'@'%'" ` +
  '(the service creates its tables itself)';

/**
 * A MySQL failure at start told as what to do about it: a database that does not exist, a user refused,
 * a server not reachable. Undefined for anything else (or on SQLite). Never quotes the password.
 */
export function storageStartFailure(error: unknown, databaseUrl: string | undefined): ConfigError | undefined {
  if (!databaseUrl) return undefined;
  const code = driverCode(error);
  const { host, port, user, database } = target(databaseUrl);
  const at = `${host}:${port}`;
  const why = `(DATABASE_URL, ${code})`;
  switch (code) {
    case 'ER_BAD_DB_ERROR':
      return new ConfigError(
        `the database "${database}" does not exist on the MySQL server at ${at} ${why}: ${CREATE_ADVICE(database, user, host, port)}`,
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
    case 'ER_DBACCESS_DENIED_ERROR':
    case 'ER_TABLEACCESS_DENIED_ERROR':
      return new ConfigError(
        `user "${user}" may not use the database "${database}" on the MySQL server at ${at} ${why}: GRANT ALL PRIVILEGES ON \`${database}\`.* TO '${user}'@'%'`,
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
