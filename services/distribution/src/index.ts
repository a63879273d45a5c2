/*
 * What other apps (the CLI, the launcher) may use of the distribution service: the files it keeps
 * in its data directory and the money, date and report conventions its admin API speaks. Nothing
 * outside services/distribution imports any other module of it (test/unit/app-boundaries.test.ts).
 */
export { canonicalTimeZone } from './buyers/rules/zoned-time.js';
export { DEMO_KEY_FILE } from './demo/demo-seed.js';
export { formatCents, parseAmountCents } from './leads/amounts.js';
export { parseCalendarDate } from './leads/calendar-date.js';
export { startOfDay } from './reports/day-start.js';
export { REPORT_GROUPINGS, type ReportGroupingName } from './reports/report-request.js';
export { generateSecrets, readLocalAdminToken, rotateLocalPiiKey, SECRETS_FILE } from './security/secrets.js';
