import { canonicalTimeZone } from '@leadflow/core/zoned-time';
import { type GetReportRequest, ReportGrouping } from '@leadflow/proto/leadflow/admin/v1/reports';
import { reportGroupings } from '@leadflow/service-kit/admin-enums';
import { invalidField } from '../errors.js';
import { requestTimeMs } from '../request-time.js';

export const REPORT_GROUPINGS = ['publisher', 'buyer', 'day', 'hour'] as const;
export type ReportGroupingName = (typeof REPORT_GROUPINGS)[number];

/** The leads a report covers: created in [fromMs, toMs) (zero = unbounded), test leads only when asked for. */
export interface ReportScope {
  fromMs: number;
  toMs: number;
  includeTest: boolean;
}

export interface ReportQuery {
  groupBy: ReportGroupingName;
  /** Canonical IANA name. */
  timezone: string;
  scope: ReportScope;
}

const INVALID_REPORT_REQUEST = 'INVALID_REPORT_REQUEST';

const invalid = (field: string, description: string) =>
  invalidField(field, description, { reason: INVALID_REPORT_REQUEST });

/** The request checked; StatusError invalid_argument for what cannot be reported on. */
export function parseReportRequest(request: GetReportRequest): ReportQuery {
  const groupBy = REPORT_GROUPINGS.find((grouping) => grouping === reportGroupings.nameOf(request.groupBy));
  if (!groupBy)
    throw invalid(
      'group_by',
      `must be one of ${REPORT_GROUPINGS.map((name) => reportGroupings.valueOf(name))
        .map((value) => ReportGrouping[value])
        .join(', ')}`,
    );
  const timezone = request.timezone === '' ? 'UTC' : canonicalTimeZone(request.timezone);
  if (!timezone) throw invalid('timezone', 'must be an IANA time zone such as America/New_York');
  const fromMs = requestTimeMs('start_time', request.startTime, INVALID_REPORT_REQUEST) ?? 0;
  const toMs = requestTimeMs('end_time', request.endTime, INVALID_REPORT_REQUEST) ?? 0;
  if (fromMs > 0 && toMs > 0 && fromMs >= toMs) throw invalid('end_time', 'must be after start_time');
  return { groupBy, timezone, scope: { fromMs, toMs, includeTest: request.includeTest } };
}
