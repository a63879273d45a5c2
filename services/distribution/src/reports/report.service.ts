import type { GetReportRequest, GetReportResponse, ReportRow } from '@leadflow/proto/leadflow/admin/v1/reports';
import type { Db } from '../db/database.js';
import { callCounts, type GroupKey, leadCounts, ledgerSums, namesById, processingTimes } from './report.repository.js';
import { FigureGroups, reportRow } from './report-figures.js';
import { parseReportRequest, type ReportScope } from './report-request.js';
import { type BucketUnit, bucketKey } from './time-buckets.js';

/** Every figure of every group: the queries run one after the other, as a transaction has one connection. */
async function gather(db: Db, scope: ReportScope, key: GroupKey): Promise<FigureGroups> {
  const groups = new FigureGroups();
  for (const query of [leadCounts, ledgerSums, callCounts, processingTimes]) {
    for (const part of await query(db, scope, key)) groups.add(part.key, part);
  }
  return groups;
}

/** Quarter hours merged into the local days or hours they fall in. */
function buckets(quarterHours: FigureGroups, unit: BucketUnit, timezone: string): FigureGroups {
  const merged = new FigureGroups();
  for (const [start, figures] of quarterHours.byKey) merged.add(bucketKey(Number(start), unit, timezone), figures);
  return merged;
}

function rows(groups: FigureGroups, names?: Map<string, string>): ReportRow[] {
  return [...groups.byKey].map(([key, figures]) => reportRow(key, names?.get(key) ?? '', figures));
}

const byNameThenKey = (a: ReportRow, b: ReportRow) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key);
const byKey = (a: ReportRow, b: ReportRow) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * Leads, sales, money, processing times and buyer calls by publisher, buyer, day or hour. Money comes
 * from the ledger entries of the leads in range, so it agrees with the ledger to the cent.
 */
export class ReportService {
  constructor(private readonly db: Db) {}

  async report(request: GetReportRequest): Promise<GetReportResponse> {
    const { groupBy, timezone, scope } = parseReportRequest(request);
    // One transaction, one snapshot: leads completing meanwhile cannot make the figures disagree.
    return this.db.transaction().execute(async (trx) => {
      switch (groupBy) {
        case 'publisher': {
          const groups = await gather(trx, scope, 'publisher');
          const names = await namesById(trx, 'publishers');
          return { rows: rows(groups, names).sort(byNameThenKey), total: reportRow('total', '', groups.total()) };
        }
        case 'buyer': {
          // A lead is offered to several buyers: the total is counted over the leads themselves.
          const groups = await gather(trx, scope, 'buyer');
          const total = await gather(trx, scope, 'none');
          const names = await namesById(trx, 'buyers');
          return { rows: rows(groups, names).sort(byNameThenKey), total: reportRow('total', '', total.total()) };
        }
        case 'day':
        case 'hour': {
          const quarterHours = await gather(trx, scope, 'quarterHour');
          return {
            rows: rows(buckets(quarterHours, groupBy, timezone)).sort(byKey),
            total: reportRow('total', '', quarterHours.total()),
          };
        }
      }
    });
  }
}
