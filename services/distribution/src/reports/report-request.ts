import type { GetReportRequest } from '../../../../proto/generated/leadflow/admin/v1/admin.js';
import { canonicalTimeZone } from '../buyers/rules/zoned-time.js';
import { ServiceError } from '../errors.js';

export const REPORT_GROUPINGS = ['publisher', 'buyer', 'day', 'hour'] as const;
export type ReportGrouping = (typeof REPORT_GROUPINGS)[number];

/** The leads a report covers: created in [fromMs, toMs) (zero = unbounded), test leads only when asked for. */
export interface ReportScope {
  fromMs: number;
  toMs: number;
  includeTest: boolean;
}

export interface ReportQuery {
  groupBy: ReportGrouping;
  /** Canonical IANA name. */
  timezone: string;
  scope: ReportScope;
}

function isEpochMs(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/** The request checked; ServiceError invalid_argument for what cannot be reported on. */
export function parseReportRequest(request: GetReportRequest): ReportQuery {
  const groupBy = REPORT_GROUPINGS.find((grouping) => grouping === request.groupBy);
  if (!groupBy) throw new ServiceError('invalid_argument', `group_by must be one of ${REPORT_GROUPINGS.join(', ')}`);
  const timezone = request.timezone === '' ? 'UTC' : canonicalTimeZone(request.timezone);
  if (!timezone)
    throw new ServiceError('invalid_argument', 'timezone must be an IANA time zone such as America/New_York');
  const { fromMs, toMs, includeTest } = request;
  if (!isEpochMs(fromMs) || !isEpochMs(toMs))
    throw new ServiceError('invalid_argument', 'from_ms and to_ms must be epoch milliseconds');
  if (fromMs > 0 && toMs > 0 && fromMs >= toMs)
    throw new ServiceError('invalid_argument', 'from_ms must be before to_ms');
  return { groupBy, timezone, scope: { fromMs, toMs, includeTest } };
}
