/*
 * What other packages (the CLI, the launcher, the bench) may use of the distribution service: the
 * files it keeps in its data directory and how it locks them, the report groupings its admin API speaks, the
 * paths a buyer document's mistakes are named by, the largest request it takes, the ranges its admin API
 * checks numbers against, and its storage with the shapes of its tables. Nothing outside services/distribution imports any other module of
 * it (test/package-boundaries.unit.test.ts).
 */

export type { HttpExchange, Integration } from './buyers/definition/buyer-definition.js';
export { indexPath, keyPath } from './buyers/definition/problems.js';
export { type HeldLock, holdLockFile, type LockHolder } from './db/data-dir-lock.js';
export { createDatabase, type Db, SQLITE_FILE } from './db/database.js';
export type { BuyerAttemptOutcome, Database } from './db/schema.js';
export { DEMO_KEY_FILE } from './demo/demo-seed.js';
export { MAX_RECEIVED_MESSAGE_BYTES } from './grpc/message-limits.js';
export { PAYOUT_SHARE_BPS, RATE_LIMIT_PER_MINUTE } from './publishers/publisher-limits.js';
export { REPORT_GROUPINGS, type ReportGroupingName } from './reports/report-request.js';
export { MAX_REENCRYPT_BATCH } from './security/pii-lifecycle.js';
export { generateSecrets, readLocalAdminToken, rotateLocalPiiKey, SECRETS_FILE } from './security/secrets.js';
